// Catalogue of every reason code the risk engine emits; the methodology document is generated from it.
import type { CategoryScores } from './types.js';

export type ReasonKind = 'blocking' | 'advisory';

export interface ReasonCodeInfo {
  /** One-line meaning, written for the methodology page. */
  meaning: string;
  /** `advisory` reasons are emitted as `ADVISORY: CODE: ...` and never drive the decision (spec "Decision semantics"). */
  kind: ReasonKind;
  /** Score category the signal belongs to. */
  category: keyof CategoryScores;
  /** True when the code is a hard override that forces `deny` whatever the band. */
  forcesDeny: boolean;
}

// Weights are deliberately absent: the spec ("Risk score") keeps per-signal weights unpublished.
export const REASON_CODES = {
  PREVIEW_ABOVE_ENTITLEMENT: {
    meaning: "The trade was evaluated as a preview of a tier above the one the wallet's holdings grant; a preview is never an allowance.",
    kind: 'blocking', category: 'wallet', forcesDeny: true,
  },
  FAKE_TOKEN_SUSPECTED: {
    meaning: 'The asset / contract_address pair does not match the official registry entry (suspected fake token).',
    kind: 'blocking', category: 'registry', forcesDeny: true,
  },
  UNREGISTERED_ASSET: {
    meaning: 'The asset is not in the official registry and allow_unregistered is false.',
    kind: 'blocking', category: 'registry', forcesDeny: true,
  },
  UNREGISTERED_ALLOWED: {
    meaning: 'The asset is not in the official registry; it is scored only because allow_unregistered is true.',
    kind: 'blocking', category: 'registry', forcesDeny: false,
  },
  CONTRACT_FLAGGED_DANGER: {
    meaning: 'A token-safety check returned severity=danger for the contract within the last 24 hours.',
    kind: 'blocking', category: 'contract', forcesDeny: true,
  },
  CONTRACT_SAFETY_WARN: {
    meaning: 'The latest token-safety check returned severity=warn for the contract.',
    kind: 'blocking', category: 'contract', forcesDeny: false,
  },
  SELL_SIZE_UNPROVEN: {
    meaning: "The trade's amount is larger than the largest sell the token-safety check saw go through at once (a share of the pool's depth), so a sell of this size was not shown to work; the verdict is at least warn whatever the score.",
    kind: 'blocking', category: 'contract', forcesDeny: false,
  },
  CONTRACT_UNCHECKED: {
    meaning: 'No token-safety result exists yet for a contract outside the registry.',
    kind: 'blocking', category: 'contract', forcesDeny: false,
  },
  PRICE_UNAVAILABLE: {
    meaning: 'No usable USD price exists, so the notional cannot be checked; fail closed.',
    kind: 'blocking', category: 'price', forcesDeny: true,
  },
  PRICE_FALLBACK_OVER_FLOOR: {
    meaning: "The price is a built-in default and the notional exceeds the tier's advisory floor.",
    kind: 'blocking', category: 'price', forcesDeny: true,
  },
  PRICE_FALLBACK_DEFAULT: {
    meaning: 'The price is a built-in default, not a live quote.',
    kind: 'blocking', category: 'price', forcesDeny: false,
  },
  PRICE_FROM_VENUE: {
    meaning: 'The price comes from a venue v4 pool rather than the oracle.',
    kind: 'blocking', category: 'price', forcesDeny: false,
  },
  PRICE_STALE: {
    meaning: 'The oracle round is older than its staleness limit.',
    kind: 'blocking', category: 'price', forcesDeny: false,
  },
  PRICE_DEVIATION: {
    meaning: 'Oracle and venue prices disagree by more than 200 basis points; the notional is judged at the higher of the two.',
    kind: 'blocking', category: 'price', forcesDeny: false,
  },
  PRICE_SOURCES_DISAGREE: {
    meaning: 'Oracle and venue prices disagree by more than 1,000 basis points: at least one source is wrong, so no notional can be trusted.',
    kind: 'blocking', category: 'price', forcesDeny: true,
  },
  PERMIT_ON_FLAGGED_PRICE: {
    meaning: 'A TradePermit was asked for and the price is flagged (a stale oracle round, sources more than 200 basis points apart, or a built-in default); no permit is signed on such a price.',
    kind: 'blocking', category: 'price', forcesDeny: true,
  },
  MARKET_CLOSED: {
    meaning: 'The NYSE regular session is closed (weekend, holiday or outside hours); the 24/5 feed may lag.',
    kind: 'advisory', category: 'price', forcesDeny: false,
  },
  ASSET_BLOCKED_BY_POLICY: {
    meaning: "The asset symbol or contract address is on the wallet's blocked-assets list.",
    kind: 'blocking', category: 'wallet', forcesDeny: true,
  },
  POLICY_ASSET_NOT_ALLOWED: {
    meaning: "The wallet's own limits allow only a list of registry assets (allowed_assets), and this asset is not on it.",
    kind: 'blocking', category: 'wallet', forcesDeny: true,
  },
  POLICY_SIDE_NOT_ALLOWED: {
    meaning: "The wallet's own limits allow only one side (allowed_sides), and this trade is on the other.",
    kind: 'blocking', category: 'wallet', forcesDeny: true,
  },
  POLICY_SLIPPAGE: {
    meaning: "max_slippage_bps exceeds the wallet's own max_slippage_bps limit.",
    kind: 'blocking', category: 'trade', forcesDeny: true,
  },
  POLICY_MAX_TRADE: {
    meaning: "The notional exceeds the wallet's own per-trade limit (max_trade_usd, at most the tier's ceiling).",
    kind: 'blocking', category: 'trade', forcesDeny: true,
  },
  POLICY_DAILY_BUDGET: {
    meaning: "The notional, added to what the wallet's allowed and warned trades used since 00:00 UTC on every channel, exceeds its daily budget (daily_notional_usd).",
    kind: 'blocking', category: 'wallet', forcesDeny: true,
  },
  DAILY_LOSS_LIMIT: {
    meaning: "The wallet's loss since the start of its UTC day has reached the tier's daily loss limit.",
    kind: 'blocking', category: 'wallet', forcesDeny: true,
  },
  DAILY_LOSS_HIGH: {
    meaning: "The wallet's loss since the start of its UTC day is at least half the tier's daily loss limit.",
    kind: 'blocking', category: 'wallet', forcesDeny: false,
  },
  RATE_WINDOW_NEAR_LIMIT: {
    meaning: "The wallet has used at least 80% of its evaluations in the current per-wallet window.",
    kind: 'blocking', category: 'wallet', forcesDeny: false,
  },
  NOTIONAL_OVER_TIER_LIMIT: {
    meaning: "The notional exceeds the tier's per-trade ceiling.",
    kind: 'blocking', category: 'trade', forcesDeny: true,
  },
  NOTIONAL_NEAR_TIER_LIMIT: {
    meaning: "The notional exceeds 80% of the tier's per-trade ceiling.",
    kind: 'blocking', category: 'trade', forcesDeny: false,
  },
  SLIPPAGE_HIGH: {
    meaning: 'max_slippage_bps exceeds 300, 500 or 1,000 basis points.',
    kind: 'blocking', category: 'trade', forcesDeny: false,
  },
  PRICE_IMPACT_EXCEEDS_SLIPPAGE: {
    meaning: "The trade's price impact on the registry venue's pool at the evaluated block exceeds the request's max_slippage_bps (or the pool cannot fill it): the swap would revert at the caller's own limit, or fill outside it.",
    kind: 'blocking', category: 'trade', forcesDeny: true,
  },
  PRICE_IMPACT_HIGH: {
    meaning: "The trade's price impact on the registry venue's pool is within max_slippage_bps but above 100 or 300 basis points.",
    kind: 'blocking', category: 'trade', forcesDeny: false,
  },
  PRICE_IMPACT_UNKNOWN: {
    meaning: "No pool of the registry venue was read for the asset (offline, no venue, or a pool with no liquidity), so the trade's price impact is unknown.",
    kind: 'advisory', category: 'trade', forcesDeny: false,
  },
  DEADLINE_PASSED: {
    meaning: 'The trade deadline (unix seconds) had already passed at evaluation time.',
    kind: 'blocking', category: 'trade', forcesDeny: true,
  },
  DEADLINE_NEAR: {
    meaning: 'The trade deadline is 30 seconds away or less; the trade may expire before it executes.',
    kind: 'advisory', category: 'trade', forcesDeny: false,
  },
} as const satisfies Record<string, ReasonCodeInfo>;

export type ReasonCode = keyof typeof REASON_CODES;
export type OverrideCode = {
  [K in ReasonCode]: (typeof REASON_CODES)[K]['forcesDeny'] extends true ? K : never;
}[ReasonCode];

/** Fixed priority: `RiskResult.override` names the first override that fired in this order. */
export const OVERRIDE_PRIORITY: readonly OverrideCode[] = Object.freeze([
  'PREVIEW_ABOVE_ENTITLEMENT',
  'FAKE_TOKEN_SUSPECTED',
  'UNREGISTERED_ASSET',
  'CONTRACT_FLAGGED_DANGER',
  'PRICE_UNAVAILABLE',
  'PRICE_FALLBACK_OVER_FLOOR',
  'PRICE_SOURCES_DISAGREE',
  'NOTIONAL_OVER_TIER_LIMIT',
  'ASSET_BLOCKED_BY_POLICY',
  'POLICY_ASSET_NOT_ALLOWED',
  'POLICY_SIDE_NOT_ALLOWED',
  'POLICY_SLIPPAGE',
  'POLICY_MAX_TRADE',
  'POLICY_DAILY_BUDGET',
  'PRICE_IMPACT_EXCEEDS_SLIPPAGE',
  'DAILY_LOSS_LIMIT',
  'DEADLINE_PASSED',
  'PERMIT_ON_FLAGGED_PRICE',
] as const);

const ADVISORY_PREFIX = 'ADVISORY: ';

/** Builds a reason string in the form of ARCHITECTURE.md "Reason strings": `CODE: words`, or `ADVISORY: CODE: words`. */
export function reason(code: ReasonCode, words: string): string {
  const text = `${code}: ${words}`;
  return REASON_CODES[code].kind === 'advisory' ? ADVISORY_PREFIX + text : text;
}

/** Spec "Decision semantics": a reason starting with `ADVISORY:` is non-blocking context. */
export function isAdvisory(reasonText: string): boolean {
  return reasonText.startsWith('ADVISORY:');
}
