// The wallet's own limits as hard overrides: each returns the reason's words when its limit stops the trade, else null.
import { judgedNote, type Derived } from './derived.js';
import { formatNumber, roundCents } from './format.js';
import type { RiskInput } from './types.js';

const usd = (value: number): string => `${formatNumber(value)} USD`;

/** ARCHITECTURE.md "Fleet limits": the notional per trade, judged like the tier's ceiling (at the higher price read). */
export function overMaxTrade(input: RiskInput, d: Derived): string | null {
  const limit = input.limits?.maxTradeUsd ?? null;
  if (limit === null || d.notionalUsd <= limit) return null;
  return `${usd(d.notionalUsd)}${judgedNote(input, d)} exceeds this wallet's own per-trade limit of ${usd(limit)}`;
}

/**
 * ARCHITECTURE.md "Fleet limits": what the day's allowed and warned trades already used, plus
 * this trade, must stay within the daily budget; a deny uses none of it.
 */
export function overDailyBudget(input: RiskInput, d: Derived): string | null {
  const budget = input.limits?.dailyNotionalUsd ?? null;
  if (budget === null) return null;
  const used = input.wallet.dailyNotionalUsedUsd ?? 0;
  if (roundCents(used + d.notionalUsd) <= budget) return null;
  const left = Math.max(0, roundCents(budget - used));
  return `${usd(d.notionalUsd)}${judgedNote(input, d)} would bring today's use to ${usd(roundCents(used + d.notionalUsd))}, ` +
    `over this wallet's daily budget of ${usd(budget)} (${usd(left)} left until 00:00 UTC)`;
}

/** ARCHITECTURE.md "Fleet limits": only the listed registry symbols; a contract is known by its registry symbol. */
export function assetNotAllowed(input: RiskInput, d: Derived): string | null {
  const allowed = input.limits?.allowedAssets ?? null;
  if (allowed === null) return null;
  const registered = input.registryByAddress?.symbol.toUpperCase() ?? null;
  if (allowed.includes(d.symbol) && (registered === null || registered === d.symbol)) return null;
  return `${d.symbol} is not among the assets this wallet allows itself (${allowed.join(', ') || 'none'})`;
}

export function sideNotAllowed(input: RiskInput): string | null {
  const sides = input.limits?.allowedSides ?? null;
  if (sides === null || sides.includes(input.trade.side)) return null;
  return `${input.trade.side} is not a side this wallet allows itself (only ${sides.join(', ')})`;
}

export function slippageOverLimit(input: RiskInput): string | null {
  const limit = input.limits?.maxSlippageBps ?? null;
  if (limit === null || input.trade.max_slippage_bps <= limit) return null;
  return `max_slippage_bps ${formatNumber(input.trade.max_slippage_bps)} exceeds this wallet's own limit of ${formatNumber(limit)} bps`;
}
