// What a buyer of one token lives through, simulated: acquire it as a buyer does, then sell it by transfer and through a router, at once and after holding.
import { decodeErrorResult, getAddress, parseAbi, type Address, type Hex } from 'viem';
import type { BalanceSlot } from '../chain/balance-slot.js';
import type { PoolKey } from '../chain/venue-pool.js';
import type { Venue } from '../registry/registry.js';
import type { OwnerPower } from './owner-powers.js';
import { HOLD_HORIZONS, type Acquisition, type GasTerms, type Pool, type SellPath } from './simulation-bundle.js';
import type { SellLeg, SimulationOutcome } from './simulation-outcome.js';

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
  /** Holders sold after every hold horizon (a block, 6, 12 and 18 hours, 1, 7 and 30 days), by both paths. */
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
  /** A holder without code (a plain wallet) sent the token with its own transfer after the longest hold; null without a proven balance slot. */
  own_transfer_ok: boolean | null;
  /** A holder sold a sizeable share of the pool's depth at once (`sized_sell_amount`); null without a live pool and a proven balance slot. */
  sized_sell_ok: boolean | null;
  sized_sell_amount: string | null;
  revert_reason: string | null;
  detail: string;
}

/** Quote-token units a simulated buy spends, in whole units of the quote token. */
const BUY_WHOLE_QUOTE = 100n;

/**
 * The simulated calls pay the chain's base fee, at least 1 gwei, plus a 1 gwei tip: a token
 * that tests tx.gasprice or block.basefee sees what a real transaction shows it.
 */
export const MIN_BASE_FEE_WEI = 1_000_000_000n;
export const PRIORITY_FEE_WEI = 1_000_000_000n;

export function gasTerms(headBaseFee: bigint): GasTerms {
  return { baseFee: headBaseFee > MIN_BASE_FEE_WEI ? headBaseFee : MIN_BASE_FEE_WEI, priorityFee: PRIORITY_FEE_WEI };
}

export function poolOf(venue: Venue, key: PoolKey, token: Address, quoteSlot: BalanceSlot): Pool {
  return {
    manager: getAddress(venue.pool_manager),
    key,
    tokenIsCurrency0: key.currency0 === token,
    quote: getAddress(venue.quote_token.address),
    quoteSlot,
    quoteIn: BUY_WHOLE_QUOTE * 10n ** BigInt(venue.quote_token.decimals),
  };
}

export function fromOutcome(outcome: SimulationOutcome, gas: GasTerms, powers: OwnerPower[] | null): SellSimulation {
  const reason = outcome.failed ? describeRevert(outcome.failureData) : null;
  const { worst } = outcome;
  const pulls = outcome.sells.filter((leg) => leg.path === 'transfer_from');
  return {
    ok: outcome.acquired && outcome.sellFreshOk === true && outcome.sellHeldOk !== false && outcome.ownTransfer?.ok !== false && outcome.sizedSell?.ok !== false,
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
    own_transfer_ok: outcome.ownTransfer?.ok ?? null,
    sized_sell_ok: outcome.sizedSell?.ok ?? null,
    sized_sell_amount: outcome.sizedSell?.amount.toString() ?? null,
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

export function notSimulated(detail: string, notAToken = false): SellSimulation {
  return {
    ok: false, simulated: false, not_a_token: notAToken, method: null, sold_via: null, probe: null, bought: null, amount_in: null,
    paid: null, received: null, buy_tax_bps: null, sell_tax_bps: null, tax_bps: null, buy_ok: null, sell_fresh_ok: null,
    sell_held_ok: null, wallet_transfer_ok: null, own_transfer_ok: null, sized_sell_ok: null, sized_sell_amount: null, transfer_from_ok: null, sells: [], owner_powers: null, base_fee_wei: null, gas_price_wei: null,
    revert_reason: null, detail,
  };
}
