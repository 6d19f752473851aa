// One eth_simulateV1 request holding every leg of a token-safety simulation, and what each leg returned.
import { randomBytes } from 'node:crypto';
import { encodeFunctionData, erc20Abi, getAddress, numberToHex, parseAbi, type Address, type Hex, type PublicClient } from 'viem';
import { balanceStorageKey, type BalanceSlot } from '../chain/balance-slot.js';
import type { PoolKey } from '../chain/venue-pool.js';
import { ownTransferBalance, ownTransferCalls, type OwnTransfer } from './own-transfer.js';
import type { RecentHolder } from './recent-holders.js';
import { sizedSellBalance, sizedSellCall, type SizedSell } from './sized-sell.js';

const POOL_KEY = '(address currency0, address currency1, uint24 fee, int24 tickSpacing, address hooks)';
export const safetyProbeAbi = parseAbi([
  `function buy(address manager, ${POOL_KEY} key, bool tokenIsCurrency0, uint256 quoteIn) returns (uint256 amountOut, uint256 received)`,
  `function sellAll(address manager, ${POOL_KEY} key, bool tokenIsCurrency0) returns (uint256 amountIn, uint256 paid, uint256 received)`,
  `function sellAllVia(address router, address manager, ${POOL_KEY} key, bool tokenIsCurrency0) returns (uint256 amountIn, uint256 paid, uint256 received)`,
  'function sendAll(address token, address to) returns (uint256 sent, uint256 arrived)',
  'function sendAllVia(address spender, address token, address to) returns (uint256 sent, uint256 arrived)',
]);

/** How a holder pays its tokens out: `transfer` from itself, or `transfer_from` by a spender it approved (a router). */
export type SellPath = 'transfer' | 'transfer_from';
const PATHS: readonly SellPath[] = ['transfer', 'transfer_from'];
const TRANSFER_ONLY: readonly SellPath[] = ['transfer'];

/**
 * How long held holders keep the token before they sell (ARCHITECTURE.md "Token safety"): one
 * block; a quarter, half and three quarters of a day, so a trap that opens or closes at some
 * hour of the day shows though the whole-day holds land at the hour they started; and a day, a
 * week and thirty days. Block counts follow 12-second blocks, but the first is one block and
 * the intra-day ones are a block or two off that grid, so a trap that reads the block number
 * (its parity, or a count since the buy) is met at numbers a time-only grid never reaches.
 * The intra-day holds sell by `transfer` alone: a clock trap stops every path alike, and a block
 * on one path shows at once and at every whole-day hold, so a second path there only costs time.
 */
export const HOLD_HORIZONS: readonly { seconds: bigint; blocks: bigint; paths: readonly SellPath[] }[] = [
  { seconds: 12n, blocks: 1n, paths: TRANSFER_ONLY },
  { seconds: 6n * 3_600n, blocks: 1_801n, paths: TRANSFER_ONLY },
  { seconds: 12n * 3_600n, blocks: 3_602n, paths: TRANSFER_ONLY },
  { seconds: 18n * 3_600n, blocks: 5_401n, paths: TRANSFER_ONLY },
  { seconds: 86_400n, blocks: 7_200n, paths: PATHS },
  { seconds: 7n * 86_400n, blocks: 50_400n, paths: PATHS },
  { seconds: 30n * 86_400n, blocks: 216_000n, paths: PATHS },
];

/** One holder of a route: when it sells (0: at once; else an index into HOLD_HORIZONS plus one) and how. */
export interface Seller {
  name: string;
  address: Address;
  horizon: number;
  path: SellPath;
}

/** The fee terms every simulated call pays, so gas-price and base-fee gates fire as they would on chain. */
export interface GasTerms {
  baseFee: bigint;
  priorityFee: bigint;
}

/** `venue_v4`: bought through the pool; `holder_transfer`: sent by a real holder; `state_override`: balance written. */
export type Acquisition = 'venue_v4' | 'holder_transfer' | 'state_override';

export interface Pool {
  manager: Address;
  key: PoolKey;
  tokenIsCurrency0: boolean;
  quote: Address;
  quoteSlot: BalanceSlot;
  quoteIn: bigint;
}

export interface BundleInput {
  token: Address;
  probeCode: Hex;
  head: { number: bigint; time: bigint };
  /** A live pool to buy from and sell into; null: holders dispose by transfer to a wallet. */
  pool: Pool | null;
  holders: readonly RecentHolder[];
  /** The token's proven-by-marker balance slot and the amount an override gives; null: no override route. */
  override: { slot: BalanceSlot; amount: bigint } | null;
  decimals: number;
  gas: GasTerms;
  /** The venue's router (SwapHelper), which sells with transferFrom; null: a throwaway copy of the probe's own. */
  router: Address | null;
  /** Calls run after every sell, in a block of their own: owner reads and owner probes. */
  tail: TailBlock | null;
  /** The sell-size rung's amount (a share of the pool's depth); null: no live pool to size it by. */
  sized?: bigint | null;
}

/** The last blocks of the simulation, one after another: their calls with labels, and state overrides applied at the first. */
export interface TailBlock {
  /**
   * `gap`: how far after the block before it the block runs; one 12-second block when absent.
   * `overrides`: state overrides applied at that block (not the first), when earlier calls must see the state untouched.
   */
  blocks: { labels: string[]; calls: { from: Address; to: Address; data: Hex }[]; gap?: { seconds: bigint; blocks: bigint }; overrides?: Overrides }[];
  overrides: Overrides;
}

/** The holders of one route: sellers at once and after each horizon by each path, and `wallet`, which transfers to a wallet. */
export interface Route {
  method: Acquisition;
  fresh: Address;
  sellers: Seller[];
  wallet: Address | null;
  /** What each holder was sent by real holders (holder_transfer), in call order. */
  sent: bigint[];
}

export interface Bundle {
  routes: Route[];
  recipient: Address;
  /** The holder without code that transfers the token itself; null without a proven balance slot to fund it. */
  own: OwnTransfer | null;
  /** The holder that sells a sizeable share of the pool's depth at once; null without a live pool and a proven balance slot. */
  sized: SizedSell | null;
  gas: GasTerms;
  /** Call labels in block order; results come back in the same order. */
  labels: string[];
  request: unknown;
}

interface Call {
  label: string;
  from: Address;
  to: Address;
  data: Hex;
}

export function throwawayAddress(): Address {
  return getAddress(`0x${randomBytes(20).toString('hex')}`);
}

/**
 * The primary route is the pool when it is live, else real holders, else the override; when
 * the primary is not the override, an override route rides along as the backup that still
 * shows whether holders can sell when the buy itself is refused.
 */
export function buildBundle(input: BundleInput): Bundle {
  const primary: Acquisition | null = input.pool ? 'venue_v4' : input.holders.length > 0 ? 'holder_transfer' : input.override ? 'state_override' : null;
  const methods: Acquisition[] = primary === null ? [] : primary !== 'state_override' && input.override ? [primary, 'state_override'] : [primary];
  const recipient = throwawayAddress();
  const origin = throwawayAddress();
  const spender = throwawayAddress();
  const router = input.router ?? spender;
  const overrides: Overrides = { [origin]: { balance: FUNDS }, [spender]: { code: input.probeCode } };
  for (const { holder } of input.holders) overrides[holder] = { ...overrides[holder], balance: FUNDS };
  const blocks: Call[][] = [[], ...HOLD_HORIZONS.map(() => [])];
  const routes = methods.map((method, index) => {
    const sellers = sellersOf();
    const route: Route = { method, fresh: sellers[0].address, sellers, wallet: index === 0 ? throwawayAddress() : null, sent: [] };
    // Sells into the pool go through the router; without a pool the spender pulls to a wallet.
    const via = input.pool ? router : spender;
    const holders: [string, Address, number, Hex][] = sellers.map((seller) => [seller.name, seller.address, seller.horizon, dispose(input, seller.path, recipient, via)]);
    if (route.wallet) holders.push(['wallet', route.wallet, 0, sendAll(input.token, recipient)]);
    for (const [name, holder, horizon, leg] of holders) {
      overrides[holder] = { code: input.probeCode };
      acquire(input, route, name, holder, blocks[0], overrides, origin);
      blocks[0].push({ label: `${name}.${method}.balance`, from: origin, to: input.token, data: encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [holder] }) });
      blocks[horizon].push({ label: `${name}.${method}.dispose`, from: origin, to: holder, data: leg });
    }
    return route;
  });
  const own = input.override ? { holder: throwawayAddress(), recipient: throwawayAddress(), amount: input.override.amount } : null;
  if (own && input.override) {
    const [key, value] = ownTransferBalance(own, input.override.slot);
    overrides[input.token] = { ...overrides[input.token], stateDiff: { ...(overrides[input.token]?.stateDiff ?? {}), [key]: value } };
    overrides[own.holder] = { balance: FUNDS };
    blocks[HOLD_HORIZONS.length].push(...ownTransferCalls(own, input.token, origin));
  }
  const sized = input.pool && input.override && input.sized ? { holder: throwawayAddress(), amount: input.sized } : null;
  if (sized && input.pool && input.override) {
    const [key, value] = sizedSellBalance(sized, input.override.slot);
    overrides[input.token] = { ...overrides[input.token], stateDiff: { ...(overrides[input.token]?.stateDiff ?? {}), [key]: value } };
    overrides[sized.holder] = { code: input.probeCode };
    blocks[0].push(sizedSellCall(sized, input.pool, origin));
  }
  const labels = [...blocks.flat().map((call) => call.label), ...(input.tail?.blocks.flatMap((block) => block.labels) ?? [])];
  return { routes, recipient, own, sized, gas: input.gas, labels, request: request(input, overrides, blocks) };
}

export type Overrides = Record<string, { code?: Hex; balance?: Hex; stateDiff?: Record<string, Hex> }>;

/** Ether for every sender, written by state override: enough for any gas limit at any realistic price. */
const FUNDS = numberToHex(10n ** 30n);

/** A holder per sell time (at once, then each horizon) and per path that horizon sells by. */
function sellersOf(): Seller[] {
  const times = [0, ...HOLD_HORIZONS.map((_, i) => i + 1)];
  return times.flatMap((horizon) => (horizon === 0 ? PATHS : HOLD_HORIZONS[horizon - 1].paths).map((path) => ({
    name: `${horizon === 0 ? 'fresh' : `held${horizon}`}${path === 'transfer' ? '' : '_pull'}`, address: throwawayAddress(), horizon, path,
  })));
}

function acquire(
  input: BundleInput, route: Route, name: string, holder: Address, calls: Call[],
  overrides: Overrides, origin: Address,
): void {
  const tag = `${name}.${route.method}`;
  if (route.method === 'venue_v4' && input.pool) {
    const { pool } = input;
    const quoteDiff = overrides[pool.quote]?.stateDiff ?? {};
    quoteDiff[balanceStorageKey(holder, pool.quoteSlot)] = numberToHex(pool.quoteIn, { size: 32 });
    overrides[pool.quote] = { ...overrides[pool.quote], stateDiff: quoteDiff };
    const data = encodeFunctionData({ abi: safetyProbeAbi, functionName: 'buy', args: [pool.manager, pool.key, pool.tokenIsCurrency0, pool.quoteIn] });
    calls.push({ label: `${tag}.buy`, from: origin, to: holder, data });
  } else if (route.method === 'holder_transfer') {
    // Each real holder sends a quarter of the newest transfer it received, capped at one token.
    const cap = 10n ** BigInt(input.decimals);
    input.holders.forEach(({ holder: from, received }, index) => {
      const amount = received / 4n > cap ? cap : received / 4n || received;
      if (name === 'fresh') route.sent.push(amount);
      const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [holder, amount] });
      calls.push({ label: `${tag}.get.${index}`, from, to: input.token, data });
    });
  } else if (input.override) {
    const tokenDiff = overrides[input.token]?.stateDiff ?? {};
    tokenDiff[balanceStorageKey(holder, input.override.slot)] = numberToHex(input.override.amount, { size: 32 });
    overrides[input.token] = { ...overrides[input.token], stateDiff: tokenDiff };
  }
}

/** A sell into the pool, or without a pool a transfer to a wallet, paid by `path`; `via` is the router or spender. */
function dispose(input: BundleInput, path: SellPath, recipient: Address, via: Address): Hex {
  if (!input.pool) {
    return path === 'transfer' ? sendAll(input.token, recipient)
      : encodeFunctionData({ abi: safetyProbeAbi, functionName: 'sendAllVia', args: [via, input.token, recipient] });
  }
  const { manager, key, tokenIsCurrency0 } = input.pool;
  return path === 'transfer'
    ? encodeFunctionData({ abi: safetyProbeAbi, functionName: 'sellAll', args: [manager, key, tokenIsCurrency0] })
    : encodeFunctionData({ abi: safetyProbeAbi, functionName: 'sellAllVia', args: [via, manager, key, tokenIsCurrency0] });
}

function sendAll(token: Address, to: Address): Hex {
  return encodeFunctionData({ abi: safetyProbeAbi, functionName: 'sendAll', args: [token, to] });
}

/**
 * Validated, with a base fee and an EIP-1559 price on every call and the senders funded by
 * override: unvalidated, eth_simulateV1 runs at gas price and base fee 0, which a token can test
 * for (ARCHITECTURE.md "Token safety"). The block gas limit is raised so no leg runs out.
 */
function request(input: BundleInput, overrides: Overrides, blocks: Call[][]): unknown {
  const { baseFee, priorityFee } = input.gas;
  const fees = { maxFeePerGas: numberToHex(baseFee + priorityFee), maxPriorityFeePerGas: numberToHex(priorityFee) };
  const wire = (calls: readonly { from: Address; to: Address; data: Hex }[]) => calls.map(({ from, to, data }) => ({ from, to, data, ...fees }));
  const first = input.head.number + 1n;
  const start = input.head.time + 1n;
  const last = HOLD_HORIZONS[HOLD_HORIZONS.length - 1];
  const at = (blocks: bigint, seconds: bigint) => ({
    number: numberToHex(first + blocks), time: numberToHex(start + seconds), baseFeePerGas: numberToHex(baseFee), gasLimit: numberToHex(BLOCK_GAS),
  });
  return {
    blockStateCalls: [
      { blockOverrides: at(0n, 0n), stateOverrides: overrides, calls: wire(blocks[0]) },
      ...HOLD_HORIZONS.map((horizon, i) => ({ blockOverrides: at(horizon.blocks, horizon.seconds), calls: wire(blocks[i + 1]) })),
      ...tailBlocks(input.tail, last).map(({ block, blocks, seconds }, i) => ({
        blockOverrides: at(blocks, seconds),
        ...(i === 0 ? { stateOverrides: input.tail!.overrides } : block.overrides ? { stateOverrides: block.overrides } : {}),
        calls: wire(block.calls),
      })),
    ],
    validation: true,
  };
}

const BLOCK_GAS = 1_000_000_000n;

/** Each tail block with its block count and seconds after the first block: one block past the last hold, then each block's gap. */
function tailBlocks(tail: TailBlock | null, last: { blocks: bigint; seconds: bigint }): { block: TailBlock['blocks'][number]; blocks: bigint; seconds: bigint }[] {
  let [blocks, seconds] = [last.blocks, last.seconds];
  return (tail?.blocks ?? []).map((block) => {
    blocks += block.gap?.blocks ?? 1n;
    seconds += block.gap?.seconds ?? 12n;
    return { block, blocks, seconds };
  });
}

/** One leg's outcome. */
export type LegResult = { ok: true; data: Hex } | { ok: false; data: Hex | null };

interface SimulatedBlock {
  calls: { status: Hex; returnData: Hex; error?: { data?: Hex } }[];
}

/** Null when the node has no eth_simulateV1 (the simulation cannot run); rejects when the node fails. */
export async function runBundle(client: PublicClient, bundle: Bundle): Promise<Map<string, LegResult> | null> {
  let blocks: SimulatedBlock[];
  try {
    blocks = (await client.request({ method: 'eth_simulateV1', params: [bundle.request, 'latest'] } as never)) as SimulatedBlock[];
  } catch (error) {
    if (unsupported(error)) return null;
    throw error;
  }
  const calls = blocks.flatMap((block) => block.calls);
  if (calls.length !== bundle.labels.length) throw new Error(`eth_simulateV1 answered ${calls.length} calls for ${bundle.labels.length}`);
  return new Map(bundle.labels.map((label, i) => {
    const call = calls[i];
    const result: LegResult = BigInt(call.status) === 1n
      ? { ok: true, data: call.returnData }
      : { ok: false, data: call.returnData && call.returnData !== '0x' ? call.returnData : (call.error?.data ?? null) };
    return [label, result];
  }));
}

/** The node has no eth_simulateV1 (as opposed to failing). */
export function unsupported(error: unknown): boolean {
  const text = String((error as { details?: string })?.details ?? (error as Error)?.message ?? '');
  return /method not found|not supported|does not exist|unknown method|-32601/i.test(text);
}
