// What a buyer of one token lives through, simulated: acquire it as a buyer does, then sell it by transfer and through a router, at once and after holding.
import { decodeErrorResult, getAddress, parseAbi, type Address, type Hex, type PublicClient } from 'viem';
import { markBalanceSlot, type BalanceSlot } from '../chain/balance-slot.js';
import { ChainUnavailableError } from '../chain/errors.js';
import { multicall3Abi, readMany, type ContractRead } from '../chain/multicall.js';
import { poolIdOf, stateViewAbi, venuePoolKey } from '../chain/venue-pool.js';
import type { Venue } from '../registry/registry.js';
import type { ProbeCode } from './probe-code.js';
import { scanBytecode } from './bytecode.js';
import { buildPowerProbe, readPowers, runPowerProbe, type OwnerPower, type PowerProbe } from './owner-powers.js';
import { recentHolders } from './recent-holders.js';
import { buildBundle, HOLD_HORIZONS, runBundle, throwawayAddress, type Acquisition, type GasTerms, type Pool, type SellPath } from './simulation-bundle.js';
import { readOutcome, type SellLeg, type SimulationOutcome } from './simulation-outcome.js';

/** Errors a buy or sell commonly reverts with, so the reason reads as a name. */
const revertAbi = parseAbi([
  'error TransferNotAllowed()',
  'error EnforcedPause()',
  'error AccountBlacklisted(address account)',
  'error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)',
  'error SafeERC20FailedOperation(address token)',
  'error WrappedError(address target, bytes4 selector, bytes reason, bytes details)',
  'error PoolNotInitialized()',
  'error CurrencyNotSettled()',
  'error TooLittleReceived(uint256 amountOut, uint256 minAmountOut)',
  'error InsufficientBalance()',
  'error NothingToDispose()',
  'error TransferReturnedFalse()',
  'error SwapAmountCannotBeZero()',
  'error NotNow()',
]);

const tokenAbi = parseAbi(['function decimals() view returns (uint8)', 'function owner() view returns (address)']);

/** One simulated sell in the TokenSafety `sell_simulation.sells` list. */
export interface SimulatedSell {
  /** How long the holder kept the token first: 0 (at once) or a hold horizon. */
  held_seconds: number;
  held_blocks: number;
  /** `transfer`: the holder paid out itself; `transfer_from`: it approved the router (or a spender), which pulled. */
  via: SellPath;
  ok: boolean;
  /** Share of what was offered that the pool (or the recipient) did not receive, in basis points; null when it reverted. */
  sell_tax_bps: number | null;
}

/** The TokenSafety `sell_simulation` object. Amounts are base units as decimal strings. */
export interface SellSimulation {
  /** The token was acquired and every sell, at once and after each hold, by either path, went through. */
  ok: boolean;
  /** False when no simulation could run; `detail` says why. */
  simulated: boolean;
  /** True when the contract does not answer balanceOf(address) at all. */
  not_a_token: boolean;
  /** How the throwaway holder acquired the token. */
  method: Acquisition | null;
  /** How it disposed of it: sold into the venue pool, or transferred to a wallet. */
  sold_via: 'venue_v4' | 'transfer' | null;
  /** The fresh holder. */
  probe: Address | null;
  /** What the fresh holder received when acquiring. */
  bought: string | null;
  /** What the sell that lost the most offered (amount_in, paid and received all describe that sell). */
  amount_in: string | null;
  /** What the pool (or the transfer's recipient) really received of the token. */
  paid: string | null;
  /** What the holder received of the quote token (venue) or the recipient of the token (transfer). */
  received: string | null;
  /** Share lost on the way in (pool payout or holder's transfer versus what arrived), in basis points. */
  buy_tax_bps: number | null;
  /** Share of amount_in lost on the way out by the worst of the sells, in basis points. */
  sell_tax_bps: number | null;
  /** The sell tax again, the field earlier clients read. */
  tax_bps: number | null;
  /** The buy (or real holder's transfer) went through; null when the token was given by state override alone. */
  buy_ok: boolean | null;
  /** Holders sold right after acquiring, by both paths. */
  sell_fresh_ok: boolean | null;
  /** Holders sold after every hold horizon (1, 7 and 30 days), by both paths. */
  sell_held_ok: boolean | null;
  /** Every approve-and-transferFrom sell (the way routers sell) went through. */
  transfer_from_ok: boolean | null;
  /** Every sell, in time order. */
  sells: SimulatedSell[];
  /** What the owner's calls did to a holder, found by behaviour; null when no owner could be probed. */
  owner_powers: OwnerPower[] | null;
  /** The base fee and gas price the simulated calls paid, in wei. */
  base_fee_wei: string | null;
  gas_price_wei: string | null;
  /** A holder transferred the token to a wallet rather than the pool. */
  wallet_transfer_ok: boolean | null;
  revert_reason: string | null;
  detail: string;
}

export interface SellDeps {
  client: PublicClient;
  multicall3: Address;
  venue: Venue | null;
  code: ProbeCode;
  /** The quote token's balance slot (found once per process); null: no venue buys. */
  quoteSlot: () => Promise<BalanceSlot | null>;
  /** The newest chain head seen, which bounds the holder log search. */
  head: { number: bigint | null };
}

/** Quote-token units a simulated buy spends, in whole units of the quote token. */
const BUY_WHOLE_QUOTE = 100n;

/**
 * The simulated calls pay the chain's base fee, at least 1 gwei, plus a 1 gwei tip: a token
 * that tests tx.gasprice or block.basefee sees what a real transaction shows it.
 */
export const MIN_BASE_FEE_WEI = 1_000_000_000n;
export const PRIORITY_FEE_WEI = 1_000_000_000n;

/**
 * Two round trips: the first reads everything the plan needs (decimals, pool, head, balance
 * slot, holders) in one batch; the second is one eth_simulateV1 holding every leg. Holders are
 * fresh per check and never the deployer or a real holder, so no allow-list or fee exemption
 * applies to them. Rejects when the node fails.
 */
export async function simulateSell(deps: SellDeps, token: Address, decimalsHint: number | null): Promise<SellSimulation> {
  const key = deps.venue ? venuePoolKey(deps.venue, token) : null;
  const excluded = deps.venue ? [getAddress(deps.venue.pool_manager)] : [];
  const [marks, reads, holders, probeCode, quoteSlot, code] = await Promise.all([
    markBalanceSlot(deps.client, token, throwawayAddress()),
    readMany(deps.client, deps.multicall3, planReads(deps, token, key ? poolIdOf(key) : null), `simulation reads of ${token}`),
    recentHolders(deps.client, token, deps.head.number, excluded),
    deps.code.safetyProbe(),
    key ? deps.quoteSlot() : Promise.resolve(null),
    deps.client.getCode({ address: token }).catch((error: unknown) => {
      throw new ChainUnavailableError(`code read of ${token}`, error);
    }),
  ]);
  if (marks.found === null && marks.balanceOfReverts) return notSimulated('the contract does not answer balanceOf(address); it is not an ERC-20 token', true);
  const [blockNumber, blockTime, baseFeeRead, decimalsRead, ownerRead, slot0, liquidity] = reads;
  if (!blockNumber.ok || !blockTime.ok) throw new ChainUnavailableError(`head read for ${token}`, new Error('Multicall3 gave no block'));
  const head = { number: blockNumber.value as bigint, time: blockTime.value as bigint };
  deps.head.number = head.number;
  const decimals = decimalsHint ?? (decimalsRead.ok ? Number(decimalsRead.value) : 18);
  const live = key !== null && slot0?.ok === true && liquidity?.ok === true && (slot0.value as readonly bigint[])[0] !== 0n && (liquidity.value as bigint) > 0n;
  const pool: Pool | null = live && key && quoteSlot ? poolOf(deps.venue!, key, token, quoteSlot) : null;
  const override = marks.found ? { slot: marks.found, amount: 10n ** BigInt(decimals) } : null;
  const gas = gasTerms(baseFeeRead.ok ? (baseFeeRead.value as bigint) : 0n);
  const router = deps.venue?.swap_helper ? getAddress(deps.venue.swap_helper) : null;
  const bundle = buildBundle({ token, probeCode, head, pool, holders, override, decimals, gas, router });
  if (bundle.routes.length === 0) {
    return notSimulated('the token has no live venue pool, no recent holder and no storage slot that could be proven to hold balances');
  }
  const owner = ownerRead.ok ? (ownerRead.value as Address) : null;
  const powers = owner && BigInt(owner) !== 0n && override && code ? buildPowerProbe({ token, owner, selectors: scanBytecode(code).selectors, slot: override.slot, amount: override.amount, head, gas }) : null;
  let legs, powerCalls;
  try {
    // Sent together, so they share the second round trip.
    [legs, powerCalls] = await Promise.all([runBundle(deps.client, bundle), powers ? runPowerProbe(deps.client, powers) : null]);
  } catch (error) {
    throw new ChainUnavailableError(`simulation of ${token}`, error);
  }
  if (legs === null) return notSimulated('the node does not offer eth_simulateV1, so no buy and sell could be simulated');
  return fromOutcome(readOutcome(bundle, legs, pool !== null), gas, ownerPowers(powers, powerCalls ?? null));
}

function ownerPowers(probe: PowerProbe | null, calls: Awaited<ReturnType<typeof runPowerProbe>>): OwnerPower[] | null {
  return probe && calls ? readPowers(probe, calls) : null;
}

function gasTerms(headBaseFee: bigint): GasTerms {
  return { baseFee: headBaseFee > MIN_BASE_FEE_WEI ? headBaseFee : MIN_BASE_FEE_WEI, priorityFee: PRIORITY_FEE_WEI };
}

function planReads(deps: SellDeps, token: Address, poolId: Hex | null): ContractRead[] {
  const reads: ContractRead[] = [
    { address: deps.multicall3, abi: multicall3Abi, functionName: 'getBlockNumber' },
    { address: deps.multicall3, abi: multicall3Abi, functionName: 'getCurrentBlockTimestamp' },
    { address: deps.multicall3, abi: multicall3Abi, functionName: 'getBasefee' },
    { address: token, abi: tokenAbi, functionName: 'decimals' },
    { address: token, abi: tokenAbi, functionName: 'owner' },
  ];
  if (poolId === null || !deps.venue) return reads;
  const stateView = getAddress(deps.venue.state_view);
  return [
    ...reads,
    { address: stateView, abi: stateViewAbi, functionName: 'getSlot0', args: [poolId] },
    { address: stateView, abi: stateViewAbi, functionName: 'getLiquidity', args: [poolId] },
  ];
}

function poolOf(venue: Venue, key: NonNullable<ReturnType<typeof venuePoolKey>>, token: Address, quoteSlot: BalanceSlot): Pool {
  return {
    manager: getAddress(venue.pool_manager),
    key,
    tokenIsCurrency0: key.currency0 === token,
    quote: getAddress(venue.quote_token.address),
    quoteSlot,
    quoteIn: BUY_WHOLE_QUOTE * 10n ** BigInt(venue.quote_token.decimals),
  };
}

function fromOutcome(outcome: SimulationOutcome, gas: GasTerms, powers: OwnerPower[] | null): SellSimulation {
  const reason = outcome.failed ? describeRevert(outcome.failureData) : null;
  const { worst } = outcome;
  const pulls = outcome.sells.filter((leg) => leg.path === 'transfer_from');
  return {
    ok: outcome.acquired && outcome.sellFreshOk === true && outcome.sellHeldOk !== false,
    simulated: outcome.acquired,
    not_a_token: false,
    method: outcome.method,
    sold_via: outcome.soldVia,
    probe: outcome.probe,
    bought: outcome.bought?.toString() ?? null,
    amount_in: worst?.amountIn?.toString() ?? null,
    paid: worst?.paid?.toString() ?? null,
    received: worst?.received?.toString() ?? null,
    buy_tax_bps: outcome.buyTaxBps,
    sell_tax_bps: worst?.taxBps ?? null,
    tax_bps: worst?.taxBps ?? null,
    buy_ok: outcome.buyOk,
    sell_fresh_ok: outcome.sellFreshOk,
    sell_held_ok: outcome.sellHeldOk,
    wallet_transfer_ok: outcome.walletOk,
    transfer_from_ok: pulls.length > 0 ? pulls.every((leg) => leg.ok) : null,
    sells: outcome.sells.map(simulatedSell),
    owner_powers: powers,
    base_fee_wei: gas.baseFee.toString(),
    gas_price_wei: (gas.baseFee + gas.priorityFee).toString(),
    revert_reason: reason,
    detail: outcome.detail,
  };
}

function simulatedSell(leg: SellLeg): SimulatedSell {
  const hold = leg.horizon === 0 ? { seconds: 0n, blocks: 0n } : HOLD_HORIZONS[leg.horizon - 1];
  return { held_seconds: Number(hold.seconds), held_blocks: Number(hold.blocks), via: leg.path, ok: leg.ok, sell_tax_bps: leg.taxBps };
}

export function describeRevert(data: Hex | null): string {
  if (data === null || data === '0x') return 'reverted without a reason';
  try {
    const decoded = decodeErrorResult({ abi: revertAbi, data });
    const name: string = decoded.errorName;
    const args = (decoded.args ?? []) as readonly unknown[];
    if (name === 'WrappedError') return describeRevert(args[2] as Hex);
    if (name === 'Error') return `Error(${String(args[0])})`;
    return name;
  } catch {
    return `error ${data.slice(0, 10)}`;
  }
}

function notSimulated(detail: string, notAToken = false): SellSimulation {
  return {
    ok: false, simulated: false, not_a_token: notAToken, method: null, sold_via: null, probe: null, bought: null, amount_in: null,
    paid: null, received: null, buy_tax_bps: null, sell_tax_bps: null, tax_bps: null, buy_ok: null, sell_fresh_ok: null,
    sell_held_ok: null, wallet_transfer_ok: null, transfer_from_ok: null, sells: [], owner_powers: null, base_fee_wei: null, gas_price_wei: null,
    revert_reason: null, detail,
  };
}
