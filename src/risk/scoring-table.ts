// The whole scoring table in one value: what the methodology publishes and what audit records name by hash.
import { TIER_POLICIES, TIER_THRESHOLDS } from './tiers.js';
import { BAND_UPPER, CATEGORY_MAX, THRESHOLDS, WEIGHTS } from './weights.js';

/**
 * Bumped whenever the engine's logic changes in a way the table does not show (a new rule, a
 * changed condition); a changed weight or band shows in the table's hash on its own.
 */
export const ENGINE_VERSION = '1.4.0';

/** Category maxima, per-signal weights, thresholds, bands, tier policies and holdings thresholds. */
export const SCORING_TABLE = Object.freeze({
  category_max: CATEGORY_MAX,
  weights: WEIGHTS,
  thresholds: THRESHOLDS,
  bands: BAND_UPPER,
  tiers: TIER_POLICIES,
  tier_thresholds: TIER_THRESHOLDS,
});
