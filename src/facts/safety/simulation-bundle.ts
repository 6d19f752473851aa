// One eth_simulateV1 request holding every leg of a token-safety simulation, and what each leg returned.
import { randomBytes } from 'node:crypto';
import { encodeFunctionData, erc20Abi, getAddress, numberToHex, parseAbi, type Address, type Hex, type PublicClient } from 'viem';
import { balanceStorageKey, type BalanceSlot } from '../chain/balance-slot.js';
import type { PoolKey } from '../chain/venue-pool.js';
import type { RecentHolder } from './recent-holders.js';

const POOL_KEY = '(address currency0, address currency1, uint24 fee, int24 tickSpacing, address hooks)';
export const safetyProbeAbi = parseAbi([
  `function buy(address manager, ${POOL_KEY} key, bool tokenIsCurrency0, uint256 quoteIn) returns (uint256 amountOut, uint256 received)`,
  `function sellAll(address manager, ${POOL_KEY} key, bool tokenIsCurrency0) returns (uint256 amountIn, uint256 paid, uint256 received)`,
  'function sendAll(address token, address to) returns (uint256 sent, uint256 arrived)',
]);

/** How long the second holder keeps the token before it sells: a day and about a day of blocks. */
export const HOLD_SECONDS = 86_400n;
export const HOLD_BLOCKS = 7_200n;

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
}

/** The holders of one route: `fresh` disposes at once, `held` after HOLD_SECONDS, `wallet` transfers to a wallet. */
export interface Route {
  method: Acquisition;
  fresh: Address;
  held: Address;
  wallet: Address | null;
  /** What each holder was sent by real holders (holder_transfer), in call order. */
  sent: bigint[];
}

export interface Bundle {
  routes: Route[];
  recipient: Address;
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
  const overrides: Record<string, { code?: Hex; stateDiff?: Record<string, Hex> }> = {};
  const [now, later]: [Call[], Call[]] = [[], []];
  const routes = methods.map((method, index) => {
    const route: Route = { method, fresh: throwawayAddress(), held: throwawayAddress(), wallet: index === 0 ? throwawayAddress() : null, sent: [] };
    for (const [name, holder] of holdersOf(route)) {
      overrides[holder] = { code: input.probeCode };
      acquire(input, route, name, holder, now, overrides, origin);
      now.push({ label: `${name}.${method}.balance`, from: origin, to: input.token, data: encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [holder] }) });
      const leg = name === 'wallet' ? sendAll(input.token, recipient) : dispose(input, recipient);
      (name === 'held' ? later : now).push({ label: `${name}.${method}.dispose`, from: origin, to: holder, data: leg });
    }
    return route;
  });
  const label = (calls: Call[]) => calls.map((call) => call.label);
  return { routes, recipient, labels: [...label(now), ...label(later)], request: request(input, overrides, now, later) };
}

function holdersOf(route: Route): [string, Address][] {
  const named: [string, Address][] = [['fresh', route.fresh], ['held', route.held]];
  return route.wallet ? [...named, ['wallet', route.wallet]] : named;
}

function acquire(
  input: BundleInput, route: Route, name: string, holder: Address, calls: Call[],
  overrides: Record<string, { code?: Hex; stateDiff?: Record<string, Hex> }>, origin: Address,
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

function dispose(input: BundleInput, recipient: Address): Hex {
  if (!input.pool) return sendAll(input.token, recipient);
  const { manager, key, tokenIsCurrency0 } = input.pool;
  return encodeFunctionData({ abi: safetyProbeAbi, functionName: 'sellAll', args: [manager, key, tokenIsCurrency0] });
}

function sendAll(token: Address, to: Address): Hex {
  return encodeFunctionData({ abi: safetyProbeAbi, functionName: 'sendAll', args: [token, to] });
}

function request(input: BundleInput, overrides: Record<string, unknown>, now: Call[], later: Call[]): unknown {
  const wire = (calls: Call[]) => calls.map(({ from, to, data }) => ({ from, to, data }));
  const first = input.head.number + 1n;
  const start = input.head.time + 1n;
  return {
    blockStateCalls: [
      { blockOverrides: { number: numberToHex(first), time: numberToHex(start) }, stateOverrides: overrides, calls: wire(now) },
      { blockOverrides: { number: numberToHex(first + HOLD_BLOCKS), time: numberToHex(start + HOLD_SECONDS) }, calls: wire(later) },
    ],
    validation: false,
  };
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

function unsupported(error: unknown): boolean {
  const text = String((error as { details?: string })?.details ?? (error as Error)?.message ?? '');
  return /method not found|not supported|does not exist|unknown method|-32601/i.test(text);
}
