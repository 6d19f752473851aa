// Unpublished per-signal weights and thresholds of the risk score (spec "Risk score": omitted by design).
import type { CategoryScores } from './types.js';

/** Spec "Risk score": category maxima; the score is their sum, 0-100. */
export const CATEGORY_MAX: Readonly<CategoryScores> = Object.freeze({
  registry: 30,
  contract: 30,
  price: 15,
  wallet: 15,
  trade: 10,
});

export const WEIGHTS = Object.freeze({
  registry: { mismatch: 30, unregisteredBlocked: 30, unregisteredAllowed: 20 },
  // An unchecked registry token scores 0: registry tokens are vetted when listed.
  contract: { danger: 30, warn: 15, uncheckedUnregistered: 15, sellSizeUnproven: 15 },
  price: { unavailable: 15, venue: 3, fallback: 8, stale: 5, deviation: 5, marketClosed: 3 },
  wallet: { windowNearLimit: 5, dailyLossHigh: 10 },
  trade: { slippageOver300: 4, slippageOver500: 7, slippageOver1000: 10, nearCeiling: 2, priceImpactOver100: 4, priceImpactOver300: 8 },
} as const);

export const THRESHOLDS = Object.freeze({
  deviationBps: 200,
  /** Sources this far apart cannot both be right: a hard deny (PRICE_SOURCES_DISAGREE). */
  disagreementBps: 1_000,
  windowShare: 0.8,
  dailyLossShare: 0.5,
  nearCeilingShare: 0.8,
  deadlineNearMs: 30_000,
  /** Slippage steps, highest first, each paired with its weight. */
  slippageSteps: [
    [1000, WEIGHTS.trade.slippageOver1000],
    [500, WEIGHTS.trade.slippageOver500],
    [300, WEIGHTS.trade.slippageOver300],
  ] as const,
  /** Price impact steps in basis points (ARCHITECTURE.md "Price impact"), highest first, each paired with its weight. */
  priceImpactSteps: [
    [300, WEIGHTS.trade.priceImpactOver300],
    [100, WEIGHTS.trade.priceImpactOver100],
  ] as const,
});

/** Spec "Risk score" bands: 0-30 allow, 31-70 warn, 71-100 deny. */
export const BAND_UPPER = Object.freeze({ allow: 30, warn: 70 });
