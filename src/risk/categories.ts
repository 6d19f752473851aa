// The five score categories of the spec's "Risk score" table, one function each, capped at their maxima.
import { judgedNote, type Derived } from './derived.js';
import { formatNumber, formatShare } from './format.js';
import { reason, type OverrideCode } from './reason-codes.js';
import { unprovenSellWords } from './sell-size.js';
import type { CategoryScores, RiskInput } from './types.js';
import { CATEGORY_MAX, THRESHOLDS, WEIGHTS } from './weights.js';

export interface CategoryResult {
  points: number;
  reasons: readonly string[];
}

/** The reasons of a category that gives none, most of them in most verdicts: one list they all share, read only. */
const NO_REASONS: readonly string[] = [];

/** Points of one signal; `reason` is null when a fired override already explains them. */
interface Signal {
  points: number;
  reason: string | null;
}

export type Fired = ReadonlySet<OverrideCode>;

const usd = (value: number): string => `${formatNumber(value)} USD`;

function capped(max: number, signals: Signal[]): CategoryResult {
  let raw = 0;
  let reasons: string[] | null = null;
  for (const signal of signals) {
    raw += signal.points;
    if (signal.reason !== null) (reasons ??= []).push(signal.reason);
  }
  return { points: Math.min(max, raw), reasons: reasons ?? NO_REASONS };
}

export function scoreRegistry(input: RiskInput, d: Derived): CategoryResult {
  const w = WEIGHTS.registry;
  const signals: Signal[] = [];
  // Mismatch and blocked-unregistered points are explained by their override reasons.
  if (d.registry === 'mismatch') signals.push({ points: w.mismatch, reason: null });
  if (d.registry === 'unregistered' && !input.trade.allow_unregistered) {
    signals.push({ points: w.unregisteredBlocked, reason: null });
  }
  if (d.registry === 'unregistered' && input.trade.allow_unregistered) {
    const words = `${input.trade.asset} is not in the official registry; scored only because allow_unregistered is true`;
    signals.push({ points: w.unregisteredAllowed, reason: reason('UNREGISTERED_ALLOWED', words) });
  }
  return capped(CATEGORY_MAX.registry, signals);
}

export function scoreContract(input: RiskInput, d: Derived): CategoryResult {
  const w = WEIGHTS.contract;
  const { severity, flaggedDanger, riskFactors } = input.safety;
  const factors = riskFactors.length > 0 ? ` (risk factors: ${riskFactors.join(', ')})` : '';
  const signals: Signal[] = [];
  if (flaggedDanger || severity === 'danger') {
    signals.push({ points: w.danger, reason: null });
  } else if (severity === 'warn') {
    const words = `token-safety check returned severity=warn for ${d.address}${factors}`;
    signals.push({ points: w.warn, reason: reason('CONTRACT_SAFETY_WARN', words) });
  } else if (severity === 'unchecked' && !d.registryContract) {
    // Registry tokens are vetted when listed, so only an unchecked outside contract scores.
    const words = `no token-safety result exists for unregistered contract ${d.address}`;
    signals.push({ points: w.uncheckedUnregistered, reason: reason('CONTRACT_UNCHECKED', words) });
  }
  if (d.sellUnproven !== null) {
    const words = unprovenSellWords(input.trade.amount, d.sellUnproven, d.symbol);
    signals.push({ points: w.sellSizeUnproven, reason: reason('SELL_SIZE_UNPROVEN', words) });
  }
  return capped(CATEGORY_MAX.contract, signals);
}

/**
 * Reasons whose words are fixed, written once here rather than per verdict: each is then the same string verdict after
 * verdict, so what keys on it (the outcome document's lookup, the REST answer's reasons text) hashes it once.
 */
function fixedReasons<K extends string>(words: Readonly<Record<K, string>>, write: (words: string) => string): Readonly<Record<K, string>> {
  const written = {} as Record<K, string>;
  for (const key of Object.keys(words) as K[]) written[key] = write(words[key]);
  return Object.freeze(written);
}

const CLOSED_BECAUSE = { weekend: 'weekend', holiday: 'holiday', outside_hours: 'outside hours' } as const;
// ARCHITECTURE.md "Market hours": the 24/5 feed's closed weekend makes prices stale; context, not a block.
const MARKET_CLOSED = fixedReasons(CLOSED_BECAUSE, (why) => reason('MARKET_CLOSED', `NYSE regular session is closed (${why}); the 24/5 feed may lag`));
const PRICE_STALE = reason('PRICE_STALE', 'the oracle round is older than its staleness limit');

/** Adds the closed market's signal, if any, to `signals`: pushed in place, as every signal below, not spread into a new array. */
function addMarketSignal(signals: Signal[], d: Derived): Signal[] {
  if (d.session.reason !== null) signals.push({ points: WEIGHTS.price.marketClosed, reason: MARKET_CLOSED[d.session.reason] });
  return signals;
}

/** The fallback price's reason, kept for the last price it was written for: a block's verdicts share one price. */
let fallbackReason: { price: number; text: string } | null = null;

function fallbackPriceReason(price: number): string {
  if (fallbackReason === null || !Object.is(fallbackReason.price, price)) {
    fallbackReason = { price, text: reason('PRICE_FALLBACK_DEFAULT', `price ${usd(price)} is a built-in default, not a live quote`) };
  }
  return fallbackReason.text;
}

export function scorePrice(input: RiskInput, d: Derived, fired: Fired): CategoryResult {
  const w = WEIGHTS.price;
  const { source, stale, deviationBps, usd: price } = input.price;
  if (!d.priceKnown) return capped(CATEGORY_MAX.price, addMarketSignal([{ points: w.unavailable, reason: null }], d));
  const signals: Signal[] = [];
  if (source === 'venue_v4') {
    signals.push({ points: w.venue, reason: reason('PRICE_FROM_VENUE', `price ${usd(price)} comes from a venue v4 pool, not the oracle`) });
  }
  if (source === 'fallback_default') {
    // The words are written only when no override already says it: formatting numbers is a large part of a score's cost.
    const covered = fired.has('PRICE_FALLBACK_OVER_FLOOR');
    signals.push({ points: w.fallback, reason: covered ? null : fallbackPriceReason(price) });
  }
  if (stale) signals.push({ points: w.stale, reason: PRICE_STALE });
  if (deviationBps !== null && deviationBps > THRESHOLDS.deviationBps) {
    // Beyond the disagreement bound the PRICE_SOURCES_DISAGREE override says it.
    const covered = fired.has('PRICE_SOURCES_DISAGREE');
    signals.push({
      points: w.deviation,
      reason: covered ? null : reason('PRICE_DEVIATION', `oracle and venue prices differ by ${formatNumber(deviationBps)} bps (threshold ${THRESHOLDS.deviationBps} bps)${judgedNote(input, d)}`),
    });
  }
  return capped(CATEGORY_MAX.price, addMarketSignal(signals, d));
}

export function scoreWallet(input: RiskInput, d: Derived, fired: Fired): CategoryResult {
  const w = WEIGHTS.wallet;
  const { windowCount, windowLimit } = input.wallet;
  const limit = input.policy.dailyLossLimitUsd;
  const signals: Signal[] = [];
  if (windowCount > 0 && windowCount >= THRESHOLDS.windowShare * windowLimit) {
    const words = `${formatNumber(windowCount)} of ${formatNumber(windowLimit)} evaluations used in the current ${formatNumber(input.wallet.windowSeconds)} s window`;
    signals.push({ points: w.windowNearLimit, reason: reason('RATE_WINDOW_NEAR_LIMIT', words) });
  }
  if (d.lossUsd > 0 && d.lossUsd >= THRESHOLDS.dailyLossShare * limit) {
    const covered = fired.has('DAILY_LOSS_LIMIT');
    signals.push({
      points: w.dailyLossHigh,
      reason: covered ? null : reason('DAILY_LOSS_HIGH', `daily loss of ${usd(d.lossUsd)} is ${formatShare(d.lossUsd / limit)} of the Tier ${input.policy.tier} limit of ${usd(limit)}`),
    });
  }
  return capped(CATEGORY_MAX.wallet, signals);
}

function addDeadlineSignal(signals: Signal[], input: RiskInput): void {
  const deadline = input.trade.deadline;
  if (deadline === null) return;
  const leftMs = deadline * 1000 - input.nowMs;
  if (leftMs < 0 || leftMs > THRESHOLDS.deadlineNearMs) return;
  const words = `deadline is ${formatNumber(leftMs / 1000)} s away; the trade may expire before it executes`;
  signals.push({ points: 0, reason: reason('DEADLINE_NEAR', words) });
}

const UNKNOWN_BECAUSE = {
  offline: 'the service reads no chain',
  no_venue: 'the registry names no venue pool for it',
  no_pool: "the venue's pool for it holds no liquidity",
} as const;
const IMPACT_UNKNOWN = fixedReasons(UNKNOWN_BECAUSE, (why) => reason('PRICE_IMPACT_UNKNOWN', `price impact of this trade is unknown: ${why}`));

/** ARCHITECTURE.md "Price impact": points for a large impact within the tolerance, an advisory when no pool was read. */
function addImpactSignal(signals: Signal[], input: RiskInput, d: Derived, fired: Fired): void {
  const impact = d.impact;
  if (impact === null) return;
  if (impact.kind === 'unknown') {
    signals.push({ points: 0, reason: IMPACT_UNKNOWN[impact.why] });
    return;
  }
  const step = THRESHOLDS.priceImpactSteps.find((step) => impact.bps > step[0]);
  if (step === undefined) return;
  // Beyond the tolerance the PRICE_IMPACT_EXCEEDS_SLIPPAGE override says it.
  const covered = fired.has('PRICE_IMPACT_EXCEEDS_SLIPPAGE');
  const words = `price impact of ${formatNumber(impact.bps)} bps on the venue pool exceeds ${formatNumber(step[0])} bps (max_slippage_bps ${formatNumber(input.trade.max_slippage_bps)})`;
  signals.push({ points: step[1], reason: covered ? null : reason('PRICE_IMPACT_HIGH', words) });
}

export function scoreTrade(input: RiskInput, d: Derived, fired: Fired): CategoryResult {
  const bps = input.trade.max_slippage_bps;
  const ceiling = input.policy.maxTradeUsd;
  const signals: Signal[] = [];
  const step = THRESHOLDS.slippageSteps.find((step) => bps > step[0]);
  if (step !== undefined) {
    const words = `max_slippage_bps of ${formatNumber(bps)} exceeds ${formatNumber(step[0])} bps`;
    signals.push({ points: step[1], reason: reason('SLIPPAGE_HIGH', words) });
  }
  if (d.notionalUsd > THRESHOLDS.nearCeilingShare * ceiling) {
    const share = formatShare(d.notionalUsd / ceiling);
    const words = `${usd(d.notionalUsd)}${judgedNote(input, d)} is ${share} of the Tier ${input.policy.tier} ceiling of ${usd(ceiling)}`;
    // Above the ceiling the NOTIONAL_OVER_TIER_LIMIT override explains these points.
    const covered = fired.has('NOTIONAL_OVER_TIER_LIMIT');
    signals.push({ points: WEIGHTS.trade.nearCeiling, reason: covered ? null : reason('NOTIONAL_NEAR_TIER_LIMIT', words) });
  }
  addImpactSignal(signals, input, d, fired);
  addDeadlineSignal(signals, input);
  return capped(CATEGORY_MAX.trade, signals);
}

/** Category scores and their reasons, in the spec's category order. */
export function scoreCategories(input: RiskInput, d: Derived, fired: Fired): { scores: CategoryScores; reasons: string[] } {
  const registry = scoreRegistry(input, d);
  const contract = scoreContract(input, d);
  const price = scorePrice(input, d, fired);
  const wallet = scoreWallet(input, d, fired);
  const trade = scoreTrade(input, d, fired);
  return {
    scores: { registry: registry.points, contract: contract.points, price: price.points, wallet: wallet.points, trade: trade.points },
    // concat, not spreads: a spread walks each list through an iterator, allocating as it goes.
    reasons: registry.reasons.concat(contract.reasons, price.reasons, wallet.reasons, trade.reasons),
  };
}
