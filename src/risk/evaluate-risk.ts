// The pure risk engine: facts in, verdict out; no I/O, no clock, no randomness (spec "Risk score").
import { scoreCategories, type Fired } from './categories.js';
import { deriveFacts } from './derived.js';
import { findOverrides } from './overrides.js';
import type { CategoryScores, Decision, RiskInput, RiskResult } from './types.js';
import { BAND_UPPER } from './weights.js';

/** Spec "Risk score" bands: 0-30 allow, 31-70 warn, 71-100 deny. */
export function bandFor(score: number): Decision {
  if (score <= BAND_UPPER.allow) return 'allow';
  if (score <= BAND_UPPER.warn) return 'warn';
  return 'deny';
}

/** The band, raised to `warn` when `raise` holds: a sell size the check could not see is a warn (ARCHITECTURE.md "Token safety"). */
function atLeastWarn(band: Decision, raise: boolean): Decision {
  return raise && band === 'allow' ? 'warn' : band;
}

/** The overrides fired by a trade that fires none: read only (`Fired`), so every such trade shares it. */
const NONE_FIRED: Fired = new Set();

function sumScores(scores: CategoryScores): number {
  return scores.registry + scores.contract + scores.price + scores.wallet + scores.trade;
}

/**
 * Scores one trade. Identical inputs give an identical result (spec "What the service does" 4).
 * Reasons: fired overrides in priority order, then category reasons in category order.
 */
export function evaluateRisk(input: RiskInput): RiskResult {
  const derived = deriveFacts(input);
  const overrides = findOverrides(input, derived);
  // Most trades fire no override: they share one empty set and keep the categories' reasons as they are.
  const fired = overrides.length === 0 ? NONE_FIRED : new Set(overrides.map((override) => override.code));
  const { scores, reasons } = scoreCategories(input, derived, fired);
  const score = sumScores(scores);
  const override = overrides.length > 0 ? overrides[0]!.code : null;
  const result: RiskResult = {
    // Spec "Hard overrides" force deny regardless of band; an unproven sell size is at least a warn (ARCHITECTURE.md "Token safety").
    decision: override !== null ? 'deny' : atLeastWarn(bandFor(score), derived.sellUnproven !== null),
    risk_score: score,
    reasons: overrides.length === 0 ? reasons : overrides.map((o) => o.reason).concat(reasons),
    calculated_notional_usd: derived.notionalUsd,
    categories: scores,
    override,
  };
  // Added only where the facts hold a venue reading, so a verdict recorded before the rule replays as it was.
  if (derived.impact !== null) result.price_impact_bps = derived.impact.kind === 'quoted' ? derived.impact.bps : null;
  return result;
}

