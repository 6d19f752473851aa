// What would go right: for a verdict that is not `allow`, the amount, tier, time or window that would make it one.
import { largestAllowed, maxGridUnits, unitsAtLeast, unitsToAmount } from './amount-grid.js';
import { judgedPrice } from './derived.js';
import { evaluateRisk } from './evaluate-risk.js';
import { marketSession } from './market-hours.js';
import { nextMarketOpen } from './next-market-open.js';
import { TIER_THRESHOLDS, tierPolicy } from './tiers.js';
import type { Counterfactuals, RiskInput, RiskResult, TierNeeded } from './types.js';
import { THRESHOLDS } from './weights.js';

/** The engine's verdict with its counterfactuals: what the scoring threads run per trade. */
export function scoreTrade(input: RiskInput): RiskResult {
  const result = evaluateRisk(input);
  result.counterfactuals = counterfactuals(input, result);
  return result;
}

/**
 * The verdict when it is an `allow`, null when it is not. An allow has no counterfactuals, so it
 * costs one pass of the engine (about 2.5 us); a warn or deny's bisections cost some 55 us, so
 * only those are sent to the scoring threads (ARCHITECTURE.md "Scoring pool"). Whatever it
 * returns is exactly what `scoreTrade` returns for the same input.
 */
export function scoredAllow(input: RiskInput): RiskResult | null {
  const result = evaluateRisk(input);
  if (result.decision !== 'allow') return null;
  result.counterfactuals = counterfactuals(input, result);
  return result;
}

const allows = (input: RiskInput): boolean => evaluateRisk(input).decision === 'allow';

/**
 * ARCHITECTURE.md "Counterfactuals". Only for `warn` and `deny`: an `allow` needs nothing changed.
 * Deterministic like the engine: identical inputs give identical fields.
 */
export function counterfactuals(input: RiskInput, result: RiskResult): Counterfactuals {
  if (result.decision === 'allow') return {};
  const out: Counterfactuals = {};
  const amount = maxAllowedAmount(input);
  if (amount !== undefined) out.max_allowed_amount = amount;
  const tier = tierNeeded(input);
  if (tier !== undefined) out.tier_needed = tier;
  const retry = windowRetrySeconds(input);
  if (retry !== undefined) out.retry_after_seconds = retry;
  if (marketSession(input.nowMs).reason !== null) {
    const open = nextMarketOpen(input.nowMs);
    if (open !== null) out.next_market_open = open;
  }
  return out;
}

/**
 * The largest amount on the asset's base-unit grid that the same request with the same facts
 * would `allow` at this tier, as the JSON number the service reads; null when no amount would.
 * Every grid point tried is scored by the engine itself. Undefined (left out) without the
 * asset's decimals, or if the engine allowed an amount at or above the one refused, which would
 * break the monotonicity the bisection relies on.
 */
export function maxAllowedAmount(input: RiskInput): number | null | undefined {
  const decimals = input.registryBySymbol?.decimals ?? input.registryByAddress?.decimals;
  if (decimals === undefined) return undefined;
  const ceiling = maxGridUnits(decimals);
  const requested = unitsAtLeast(input.trade.amount, decimals);
  const above = requested === null || requested > ceiling ? ceiling + 1n : requested;
  const allowsUnits = (units: bigint): boolean =>
    units <= ceiling && allows({ ...input, trade: { ...input.trade, amount: unitsToAmount(units, decimals) } });
  if (allowsUnits(above)) return undefined;
  const units = largestAllowed(allowsUnits, above, sizeHints(input, decimals));
  return units === null ? null : unitsToAmount(units, decimals);
}

/**
 * Grid points just below and above each notional at which a size rule switches (the advisory floor
 * of PRICE_FALLBACK_OVER_FLOOR, NOTIONAL_NEAR_TIER_LIMIT's share, the NOTIONAL_OVER_TIER_LIMIT
 * ceiling), 2^-46 apart in relative terms: far wider than the rounding of `amount * price`, so
 * when size decides, the boundary usually lies between two of them and bisection needs about 20
 * steps instead of about 65. Only hints: each is scored by the engine.
 */
function sizeHints(input: RiskInput, decimals: number): bigint[] {
  const price = judgedPrice(input.price).usd;
  if (!(Number.isFinite(price) && price > 0)) return [];
  const { advisoryFloorUsd, maxTradeUsd } = input.policy;
  const hints: bigint[] = [];
  for (const usd of [advisoryFloorUsd, THRESHOLDS.nearCeilingShare * maxTradeUsd, maxTradeUsd, ...limitCeilings(input)]) {
    // Cents round half up: the notional first exceeds `usd` once amount * price reaches usd + 0.005.
    const units = unitsAtLeast((usd + 0.005) / price, decimals);
    if (units === null) continue;
    const spread = units >> 46n;
    hints.push(units - spread, units + spread + 1n);
  }
  return hints;
}

/** The notionals at which the wallet's own limits switch (ARCHITECTURE.md "Fleet limits"): its per-trade limit, what is left of its day. */
function limitCeilings(input: RiskInput): number[] {
  const limits = input.limits;
  if (!limits) return [];
  const ceilings: number[] = [];
  if (limits.maxTradeUsd !== null) ceilings.push(limits.maxTradeUsd);
  if (limits.dailyNotionalUsd !== null) ceilings.push(Math.max(0, limits.dailyNotionalUsd - (input.wallet.dailyNotionalUsedUsd ?? 0)));
  return ceilings;
}

/**
 * The lowest tier above the wallet's entitlement (and not below the tier evaluated) at which the
 * same request with the same facts is `allow`, with the holdings that grant it.
 */
export function tierNeeded(input: RiskInput): TierNeeded | undefined {
  const from = Math.max(input.policy.tier, input.entitledTier + 1);
  for (const threshold of [...TIER_THRESHOLDS].reverse()) {
    if (threshold.tier < from) continue;
    const higher = { ...input, policy: tierPolicy(threshold.tier), entitledTier: threshold.tier };
    if (allows(higher)) return { tier: threshold.tier, min_tokens: threshold.minTokens };
  }
  return undefined;
}

/**
 * When the per-wallet window weighed in (RATE_WINDOW_NEAR_LIMIT), the whole seconds until a next
 * evaluation would no longer be near the limit: enough of the window's oldest hits
 * (`windowHitsMs`, this one included) must age out of (t - window, t]. Undefined when the window
 * did not weigh in, its hits are unknown, or no count would clear it (a limit of 1).
 */
export function windowRetrySeconds(input: RiskInput): number | undefined {
  const { windowCount, windowLimit, windowSeconds, windowHitsMs } = input.wallet;
  const near = THRESHOLDS.windowShare * windowLimit;
  if (windowCount <= 0 || windowCount < near || windowHitsMs === undefined || windowHitsMs.length === 0) return undefined;
  // A hit at h leaves the window (t - window, t] at t = h + window (the stores' rule).
  // A next evaluation counts itself: with `kept` earlier hits still inside, it scores clear when kept + 1 < near.
  const kept = Math.ceil(near) - 2;
  if (kept < 0) return undefined;
  const mustLeave = windowHitsMs.length - kept;
  if (mustLeave <= 0) return undefined;
  const clearsAtMs = windowHitsMs[mustLeave - 1]! + windowSeconds * 1000;
  return Math.max(1, Math.ceil((clearsAtMs - input.nowMs) / 1000));
}
