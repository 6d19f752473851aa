// The devnet's fixed cast: stock symbols and prices, feed settings, tiers and pool depths.
export interface StockAsset {
  symbol: string;
  name: string;
  /** USD per share: the feed answer, the pool price and the registry's default_price_usd. */
  priceUsd: number;
  /** A stale feed last updated STALE_FEED_AGE_SECONDS before deployment. */
  staleFeed: boolean;
}

export const STOCKS: readonly StockAsset[] = [
  { symbol: 'TSLA', name: 'Tesla', priceUsd: 350.25, staleFeed: false },
  { symbol: 'NVDA', name: 'NVIDIA', priceUsd: 181.4, staleFeed: false },
  { symbol: 'AAPL', name: 'Apple', priceUsd: 229.87, staleFeed: false },
  { symbol: 'SPY', name: 'SPDR S&P 500 ETF Trust', priceUsd: 601.1, staleFeed: false },
  { symbol: 'AMZN', name: 'Amazon', priceUsd: 214.3, staleFeed: false },
  { symbol: 'MSFT', name: 'Microsoft', priceUsd: 432.55, staleFeed: true },
];

export const CHAIN_ID = 4663;
export const FEED_DECIMALS = 8;
/** Three days: stale under any sensible threshold, even across a weekend market close. */
export const STALE_FEED_AGE_SECONDS = 3 * 24 * 60 * 60;

export const TOKEN_DECIMALS = 18;
export const STABLE_DECIMALS = 6;

/** Every hostile token is priced at one dollar in its pool; only its behaviour matters. */
export const HOSTILE_PRICE_USD = 1;

/** Stablecoin on each side of a pool: deep enough that demo-sized swaps barely move the price. */
export const STOCK_POOL_DEPTH_USD = 10_000_000n;
export const HOSTILE_POOL_DEPTH_USD = 100_000n;

/**
 * The stock whose pool also holds concentrated ranges, so a quote crosses initialized ticks on the
 * real venue (ARCHITECTURE.md "Price impact"). Each range is in tick spacings from the pool's tick,
 * with a multiple of the pool's full-range liquidity: 4x within about 1.2% of the price, 2x out to
 * about 6% on each side, 1x more from about -24% to +15%.
 */
export const CONCENTRATED_POOL_SYMBOL = 'SPY';
export const CONCENTRATED_RANGES: readonly { lower: number; upper: number; times: bigint }[] = [
  { lower: -2, upper: 2, times: 4n },
  { lower: -10, upper: -2, times: 2n },
  { lower: 2, upper: 10, times: 2n },
  { lower: -40, upper: 25, times: 1n },
];

/** What the deployer mints itself to seed the pools, in whole tokens. */
export const DEPLOYER_STOCK_TOKENS = 1_000_000n;
export const DEPLOYER_STABLE_USD = 1_000_000_000n;
export const DEPLOYER_HOSTILE_TOKENS = 1_000_000n;

/** What each demo wallet holds, in whole tokens. */
export const WALLET_STOCK_TOKENS = 10n;
export const WALLET_STABLE_USD = 1_000n;
export const WALLET_HOSTILE_TOKENS = 100n;

/** Uniswap v4 pool parameters for every devnet pool. */
export const POOL_FEE = 3000;
export const POOL_TICK_SPACING = 60;

/** Whole tokens of `decimals` decimals as base units. */
export function units(whole: bigint, decimals: number): bigint {
  return whole * 10n ** BigInt(decimals);
}
