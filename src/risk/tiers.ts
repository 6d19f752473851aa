// Tier policy table: per-trade ceiling, advisory floor and daily loss limit for each tier.
import type { Tier, TierPolicy } from './types.js';

/** Share of the ceiling below which a fallback-priced trade may proceed (ARCHITECTURE.md "Advisory floor"). */
const ADVISORY_FLOOR_SHARE = 0.1;

function policyFor(tier: Tier, maxTradeUsd: number): TierPolicy {
  return Object.freeze({
    tier,
    maxTradeUsd,
    advisoryFloorUsd: maxTradeUsd * ADVISORY_FLOOR_SHARE,
    // The daily loss limit equals the tier ceiling (ARCHITECTURE.md "Daily loss").
    dailyLossLimitUsd: maxTradeUsd,
  });
}

/** Spec "Tiers" / "Limits": max notional per trade 5,000 / 25,000 / 100,000 USD. */
export const TIER_POLICIES: Readonly<Record<Tier, TierPolicy>> = Object.freeze({
  1: policyFor(1, 5_000),
  2: policyFor(2, 25_000),
  3: policyFor(3, 100_000),
});

export function tierPolicy(tier: Tier): TierPolicy {
  const policy = TIER_POLICIES[tier];
  if (policy === undefined) throw new RangeError(`unknown tier ${String(tier)}; expected 1, 2 or 3`);
  return policy;
}

/** Spec "Tiers": service-token holdings needed for each REST tier, highest first. */
export const TIER_THRESHOLDS: readonly { tier: Tier; minTokens: number }[] = Object.freeze([
  { tier: 3, minTokens: 5_000 },
  { tier: 2, minTokens: 2_500 },
  { tier: 1, minTokens: 1_000 },
]);

/** The service-token holdings that grant `tier` on REST (spec "Tiers"). */
export function minTokensFor(tier: Tier): number {
  const threshold = TIER_THRESHOLDS.find((entry) => entry.tier === tier);
  if (threshold === undefined) throw new RangeError(`unknown tier ${String(tier)}; expected 1, 2 or 3`);
  return threshold.minTokens;
}

/** Wallets below every threshold, or holding none, still get Tier 1 (spec "Tiers"). */
export function tierForHoldings(tokens: number): Tier {
  return TIER_THRESHOLDS.find((threshold) => tokens >= threshold.minTokens)?.tier ?? 1;
}

/** ARCHITECTURE.md "Previews": preview mode is a wallet below the Tier 1 threshold. */
export function isPreviewHolder(tokens: number): boolean {
  return tokens < TIER_THRESHOLDS[TIER_THRESHOLDS.length - 1].minTokens;
}
