// Values that flow into and out of the pure risk engine (no I/O on either side).

export type Decision = 'allow' | 'warn' | 'deny';
export type PriceSource = 'oracle' | 'venue_v4' | 'fallback_default' | 'unavailable';
export type Tier = 1 | 2 | 3;

/** The trade as validated at the edge, with defaults applied. */
export interface TradeInput {
  wallet: string;
  asset: string;
  contract_address: string;
  side: 'buy' | 'sell';
  amount: number;
  max_slippage_bps: number;
  /** Unix seconds after which the caller will not execute; null when absent. */
  deadline: number | null;
  allow_unregistered: boolean;
}

export interface RegistryFact {
  symbol: string;
  contract_address: string;
  decimals: number;
  is_native: boolean;
}

export interface PriceFact {
  usd: number;
  source: PriceSource;
  /** True when the oracle round is older than its staleness limit. */
  stale: boolean;
  /** Oracle-vs-venue disagreement in basis points, when both were read. */
  deviationBps: number | null;
  /**
   * The other source's price when two sources priced the asset (the venue beside a live oracle,
   * a stale oracle beside the venue): ceilings judge the notional at the higher of the two
   * (ARCHITECTURE.md "Prices that disagree"). Absent in facts recorded before the rule.
   */
  alternative?: AlternativePrice | null;
  /** Where the price was read; the engine does not use it, the audit record keeps it. */
  origin?: PriceOrigin;
}

export interface AlternativePrice {
  usd: number;
  source: 'oracle' | 'venue_v4';
}

/** The oracle round (and the block it was read at) or the venue pool a price came from. */
export type PriceOrigin =
  | {
    kind: 'oracle'; feed: string; round_id: string; answer: string; decimals: number; updated_at: number; block_number: number;
    /** The block's hash, when the read was pinned to a block the head watch applied. */
    block_hash?: string;
    /** The venue's price beside it, when the venue was read too. */
    venue?: VenueOrigin;
  }
  | ({ kind: 'venue_v4' } & VenueOrigin)
  | { kind: 'default'; price_usd: number };

export interface VenueOrigin {
  pool_id: string;
  price_usd: number;
}

/**
 * The registry venue's v4 pool as read at the evaluated block, from which the engine quotes the trade's
 * price impact at any amount (ARCHITECTURE.md "Price impact"). Amounts are decimal strings (bigints in JSON).
 */
export interface VenuePoolFact {
  kind: 'pool';
  pool_id: string;
  /** The asset is the pool's currency0 (the venue's quote token is the other side). */
  token_is_currency0: boolean;
  sqrt_price_x96: string;
  tick: number;
  liquidity: string;
  lp_fee: number;
  protocol_fee: number;
  tick_spacing: number;
  /** Every initialized tick in the bitmap words read, ascending, as [tick, liquidityNet]. */
  ticks: Array<[number, string]>;
  /** The bitmap words read, inclusive: [lowest, highest]. */
  words: [number, number];
  /** The block the state was read at. */
  block: { number: string; hash: string };
}

/**
 * No pool was read, so the impact is unknown: `offline` (no chain), `no_venue` (the registry names no
 * venue, or no pool for this asset), `no_pool` (the pool is not initialised or holds no liquidity).
 */
export interface VenueUnread {
  kind: 'unread';
  why: 'offline' | 'no_venue' | 'no_pool';
}

export type VenueFact = VenuePoolFact | VenueUnread;

export interface SafetyFact {
  /** 'unchecked' when no safety result exists yet for the contract. */
  severity: 'safe' | 'warn' | 'danger' | 'unchecked';
  /** A `danger` finding for this contract within the flag lifetime (24 h). */
  flaggedDanger: boolean;
  riskFactors: string[];
  /**
   * The largest sell the token-safety check saw go through at once, in token units, rounded down to what the
   * service reads as at most that many base units (ARCHITECTURE.md "Token safety"). Absent when no sized sell
   * ran (no live pool, no proven balance slot) or it failed, and in facts recorded before the rule.
   */
  sellProvenAmount?: number;
  /** When the result the severity comes from was produced (ms); the audit record keeps it, the engine does not use it. */
  checkedAt?: number | null;
}

export interface WalletFact {
  /** Evaluations of this wallet inside the current 60 s window, this one included. */
  windowCount: number;
  windowLimit: number;
  /** Length of the sliding window (configurable; 60 s by default). */
  windowSeconds: number;
  /** Mark-to-market change of registry holdings since the first snapshot of the UTC day. */
  dailyPnlUsd: number;
  /**
   * Times (epoch ms, ascending) of the hits inside the window, this one included; read only when
   * the window weighs in, absent otherwise (ARCHITECTURE.md "Counterfactuals").
   */
  windowHitsMs?: number[];
  /**
   * Notional (USD) of this wallet's `allow` and `warn` verdicts so far in the UTC day, on every
   * channel and instance (ARCHITECTURE.md "Fleet limits"); absent in facts recorded before limits.
   */
  dailyNotionalUsedUsd?: number;
}

/**
 * Limits the wallet set on itself with /api/v1/config (ARCHITECTURE.md "Fleet limits"); each one
 * only tightens the tier's policy, and null means the wallet set none of that kind.
 */
export interface WalletLimits {
  maxTradeUsd: number | null;
  /** Notional of buys and sells together per UTC day. */
  dailyNotionalUsd: number | null;
  /** Upper-case registry symbols the wallet may trade; null allows every asset. */
  allowedAssets: string[] | null;
  allowedSides: Array<'buy' | 'sell'> | null;
  maxSlippageBps: number | null;
}

export interface TierPolicy {
  tier: Tier;
  maxTradeUsd: number;
  /** Notional below which a trade priced only by a built-in default may proceed. */
  advisoryFloorUsd: number;
  /** Daily loss (positive USD) at which evaluations are denied. */
  dailyLossLimitUsd: number;
}

/** Everything the engine needs; identical inputs give an identical result. */
export interface RiskInput {
  trade: TradeInput;
  policy: TierPolicy;
  /**
   * The highest tier the caller has proven (holdings, payment, or the channel's fixed
   * tier). Equal to `policy.tier` except for a REST preview above the wallet's holdings.
   */
  entitledTier: Tier;
  /** Registry entry for the requested symbol, or null when the symbol is unknown. */
  registryBySymbol: RegistryFact | null;
  /** Registry entry that owns `contract_address`, or null when none does. */
  registryByAddress: RegistryFact | null;
  price: PriceFact;
  safety: SafetyFact;
  wallet: WalletFact;
  /** Upper-case symbols and lower-case addresses the wallet's policy blocks. */
  blockedAssets: string[];
  /** The wallet's own limits; absent or null when it set none (and in facts recorded before limits). */
  limits?: WalletLimits | null;
  /** Evaluation time in ms since the epoch (market hours, deadline). */
  nowMs: number;
  /** The caller asked for a signed TradePermit; none is signed on a flagged price. Absent means false. */
  permitRequested?: boolean;
  /** The venue pool the price impact is quoted on; absent in facts recorded before the rule, which judge no impact. */
  venue?: VenueFact;
}

export interface CategoryScores {
  registry: number; // 0-30
  contract: number; // 0-30
  price: number; // 0-15
  wallet: number; // 0-15
  trade: number; // 0-10
}

export interface RiskResult {
  decision: Decision;
  /** Integer 0-100, the sum of the category scores. */
  risk_score: number;
  reasons: string[];
  calculated_notional_usd: number;
  categories: CategoryScores;
  /** Code of the first hard override that forced deny, or null. */
  override: string | null;
  /**
   * The trade's price impact on the venue pool in basis points (two decimals); null when no pool was read,
   * absent when the facts hold no venue reading at all (recorded before the rule).
   */
  price_impact_bps?: number | null;
  /** What would turn a `warn` or `deny` into `allow`; set by the scoring threads (counterfactuals.ts). */
  counterfactuals?: Counterfactuals;
}

export interface TierNeeded {
  tier: Tier;
  /** Service-token holdings that grant the tier (spec "Tiers"). */
  min_tokens: number;
}

/** Each field is present only when the engine computed it exactly from the same facts. */
export interface Counterfactuals {
  max_allowed_amount?: number | null;
  retry_after_seconds?: number;
  next_market_open?: number;
  tier_needed?: TierNeeded;
}
