// Uniswap v4 arithmetic for the devnet: pool keys, sqrtPriceX96 <-> USD, full-range liquidity.
import { zeroAddress, type Address } from 'viem';
import { POOL_FEE, POOL_TICK_SPACING, STABLE_DECIMALS, TOKEN_DECIMALS } from './assets.js';

// One definition of a v4 pool key, shared with the runtime venue reader, which also computes its id (poolIdOf).
export type { PoolKey } from '../../facts/chain/venue-pool.js';
import type { PoolKey } from '../../facts/chain/venue-pool.js';

const Q96 = 2n ** 96n;
const Q192 = Q96 * Q96;
/** TickMath.MAX_TICK (887272) rounded down to a multiple of the tick spacing. */
const MAX_TICK = 887272;

/** v4 orders a pool's currencies by address value; currency0 is the lower one. */
export function poolKeyFor(token: Address, stable: Address): PoolKey {
  const tokenFirst = BigInt(token) < BigInt(stable);
  return {
    currency0: tokenFirst ? token : stable,
    currency1: tokenFirst ? stable : token,
    fee: POOL_FEE,
    tickSpacing: POOL_TICK_SPACING,
    hooks: zeroAddress,
  };
}

/**
 * sqrt(currency1 base units per currency0 base unit) * 2^96 for a token priced in the
 * stablecoin. The decimals differ (18 vs 6), so the raw price is USD * 10^(6-18) when the
 * token is currency0 and its inverse otherwise. Exact integer math on micro-dollars.
 */
export function sqrtPriceX96For(priceUsd: number, tokenIsCurrency0: boolean): bigint {
  const micro = BigInt(Math.round(priceUsd * 1e6));
  const tokenUnit = 10n ** BigInt(TOKEN_DECIMALS);
  const stableUnit = 10n ** BigInt(STABLE_DECIMALS);
  const [numerator, denominator] = tokenIsCurrency0
    ? [micro * stableUnit, 1_000_000n * tokenUnit]
    : [1_000_000n * tokenUnit, micro * stableUnit];
  return isqrt((numerator * Q192) / denominator);
}

/** The inverse of sqrtPriceX96For: USD per whole token, as a float. */
export function usdFromSqrtPriceX96(sqrtPriceX96: bigint, tokenIsCurrency0: boolean): number {
  const raw = Number(sqrtPriceX96) ** 2 / Number(Q192);
  const scale = 10 ** (TOKEN_DECIMALS - STABLE_DECIMALS);
  return tokenIsCurrency0 ? raw * scale : scale / raw;
}

/** The widest range the tick spacing allows: liquidity at every price. */
export function fullRangeTicks(tickSpacing = POOL_TICK_SPACING): { tickLower: number; tickUpper: number } {
  const max = Math.floor(MAX_TICK / tickSpacing) * tickSpacing;
  return { tickLower: -max, tickUpper: max };
}

/**
 * Full-range liquidity that holds about `stableAmount` base units of the stablecoin:
 * amount1 ~ L * sqrtP when the stablecoin is currency1, amount0 ~ L / sqrtP otherwise.
 */
export function liquidityForStable(sqrtPriceX96: bigint, stableIsCurrency0: boolean, stableAmount: bigint): bigint {
  return stableIsCurrency0 ? (stableAmount * sqrtPriceX96) / Q96 : (stableAmount * Q96) / sqrtPriceX96;
}

/** The multiple of `tickSpacing` at or below the pool's tick for a price (float logs: only a range's placement depends on it). */
export function alignedTickBelow(sqrtPriceX96: bigint, tickSpacing: number): number {
  const tick = Math.floor((2 * Math.log(Number(sqrtPriceX96) / Number(Q96))) / Math.log(1.0001));
  return Math.floor(tick / tickSpacing) * tickSpacing;
}

/** Floor square root by Newton's method from above (the textbook integer version). */
function isqrt(value: bigint): bigint {
  if (value < 2n) return value;
  let x = value;
  let y = (x + 1n) >> 1n;
  while (y < x) {
    x = y;
    y = (x + value / x) >> 1n;
  }
  return x;
}
