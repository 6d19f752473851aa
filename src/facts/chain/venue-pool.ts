// Uniswap v4 pool keys, ids and prices for the registry's venue: any token against the venue's quote token.
import { encodeAbiParameters, getAddress, keccak256, parseAbi, type Address, type Hex } from 'viem';
import type { Venue } from '../registry/registry.js';

export interface PoolKey {
  currency0: Address;
  currency1: Address;
  fee: number;
  tickSpacing: number;
  hooks: Address;
}

export const stateViewAbi = parseAbi([
  'function getSlot0(bytes32 poolId) view returns (uint160 sqrtPriceX96, int24 tick, uint24 protocolFee, uint24 lpFee)',
  'function getLiquidity(bytes32 poolId) view returns (uint128 liquidity)',
]);

const Q96 = 2 ** 96;

/** The venue's pool for `token`; null when the token is the quote token itself (it has no pool against itself). */
export function venuePoolKey(venue: Venue, token: string): PoolKey | null {
  const [a, b] = [getAddress(token), getAddress(venue.quote_token.address)];
  if (a === b) return null;
  // v4 orders a pool's currencies by address value; currency0 is the lower one.
  const tokenFirst = BigInt(a) < BigInt(b);
  return {
    currency0: tokenFirst ? a : b,
    currency1: tokenFirst ? b : a,
    fee: venue.fee,
    tickSpacing: venue.tick_spacing,
    hooks: getAddress(venue.hooks),
  };
}

/** PoolId = keccak256(abi.encode(PoolKey)), as v4-core's PoolIdLibrary computes it. */
export function poolIdOf(key: PoolKey): Hex {
  return keccak256(
    encodeAbiParameters(
      [{ type: 'address' }, { type: 'address' }, { type: 'uint24' }, { type: 'int24' }, { type: 'address' }],
      [key.currency0, key.currency1, key.fee, key.tickSpacing, key.hooks],
    ),
  );
}

/**
 * Quote-token units per whole token from a pool's sqrtPriceX96. (sqrtPriceX96 / 2^96)^2 is
 * currency1 base units per currency0 base unit; the decimals turn base units into whole tokens.
 */
export function quotePerToken(sqrtPriceX96: bigint, tokenIsCurrency0: boolean, tokenDecimals: number, quoteDecimals: number): number {
  const ratio = Number(sqrtPriceX96) / Q96;
  const raw = ratio * ratio;
  const scale = 10 ** (tokenDecimals - quoteDecimals);
  return tokenIsCurrency0 ? raw * scale : scale / raw;
}
