// A venue pool's swap state at the evaluated block (slot0, liquidity, initialized ticks near the price), read once per block per pool (ARCHITECTURE.md "Price impact").
import { getAddress, parseAbi, type Address } from 'viem';
import { PerBlockCache } from '../chain/block-caches.js';
import { ChainUnavailableError } from '../chain/errors.js';
import type { ChainReads } from '../chain/chain-reads.js';
import type { Head } from '../chain/chain-head.js';
import { poolIdOf, stateViewAbi, venuePoolKey } from '../chain/venue-pool.js';
import type { RegistryAsset, Venue } from '../registry/registry.js';
import type { InitializedTick, PoolState } from '../../risk/quote/v4-swap.js';

const tickAbi = parseAbi([
  'function getTickBitmap(bytes32 poolId, int16 tick) view returns (uint256 tickBitmap)',
  'function getTickLiquidity(bytes32 poolId, int24 tick) view returns (uint128 liquidityGross, int128 liquidityNet)',
]);

/**
 * Bitmap words read on each side of the price's word. A word spans 256 tick spacings (15,360
 * ticks at spacing 60, a factor of 4.6 in price), so two words each way cover any trade a
 * tolerance could allow; a swap that walks past them is quoted as a part (`beyond_window`).
 */
export const WINDOW_WORDS = 2;

export interface PoolOfAsset {
  poolId: `0x${string}`;
  tokenIsCurrency0: boolean;
}

/** A pool's state and which side of it the asset is. */
export interface VenuePool {
  poolId: `0x${string}`;
  tokenIsCurrency0: boolean;
  state: PoolState;
  /** The block the state was read at. */
  block: { number: string; hash: string };
}

/**
 * Reads through StateView in three batched rounds pinned to one block: slot0 and liquidity, the
 * bitmap words around the price's tick, then each initialized tick's liquidityNet. A pool that
 * is not initialised or holds no liquidity is null; a node that does not answer rejects.
 */
export class PoolStateReader {
  private readonly cache = new PerBlockCache<VenuePool | null>();
  private readonly stateView: Address;
  /** Each asset's pool id and side, fixed by the venue and the asset's address: derived once, not per request (a keccak each). */
  private readonly pools = new Map<string, PoolOfAsset | null>();

  constructor(private readonly chain: ChainReads, private readonly venue: Venue) {
    this.stateView = getAddress(venue.state_view);
  }

  async pool(asset: RegistryAsset): Promise<VenuePool | null> {
    const found = this.poolOf(asset.contract_address);
    if (found === null) return null;
    const { poolId, tokenIsCurrency0 } = found;
    const head = await this.chain.head.use();
    return this.cache.get(poolId, head, () => this.read(poolId, tokenIsCurrency0, head));
  }

  /** The asset's pool on the venue (its id, and whether the asset is currency0), or null when the venue has none for it. */
  poolOf(contractAddress: string): PoolOfAsset | null {
    let found = this.pools.get(contractAddress);
    if (found === undefined) {
      const key = venuePoolKey(this.venue, contractAddress);
      found = key === null ? null : { poolId: poolIdOf(key), tokenIsCurrency0: key.currency0 === getAddress(contractAddress) };
      this.pools.set(contractAddress, found);
    }
    return found;
  }

  private async read(poolId: `0x${string}`, tokenIsCurrency0: boolean, head: Head): Promise<VenuePool | null> {
    const at = (functionName: string, args: readonly unknown[], abi: readonly unknown[] = tickAbi) =>
      ({ address: this.stateView, abi, functionName, args: [poolId, ...args] }) as never;
    const what = `pool state read of pool ${poolId}`;
    const [slot0, liquidity] = await this.chain.reads.read([at('getSlot0', [], stateViewAbi), at('getLiquidity', [], stateViewAbi)], what, head.number);
    if (!slot0.ok || !liquidity.ok) return null;
    const [sqrtPriceX96, tick, protocolFee, lpFee] = slot0.value as readonly [bigint, number, number, number];
    if (sqrtPriceX96 === 0n || (liquidity.value as bigint) === 0n) return null;
    const spacing = this.venue.tick_spacing;
    const word = Math.floor(Math.floor(tick / spacing) / 256);
    const words = { lowest: word - WINDOW_WORDS, highest: word + WINDOW_WORDS };
    const positions = Array.from({ length: 2 * WINDOW_WORDS + 1 }, (_, i) => words.lowest + i);
    const bitmaps = await this.chain.reads.read(positions.map((position) => at('getTickBitmap', [position])), what, head.number);
    const initialized = positions.flatMap((position, i) => bitsOf(bitmaps[i], `tick bitmap word ${position} of pool ${poolId}`)
      .map((bit) => (position * 256 + bit) * spacing));
    const infos = initialized.length === 0 ? [] : await this.chain.reads.read(initialized.map((t) => at('getTickLiquidity', [t])), what, head.number);
    const ticks: InitializedTick[] = initialized.map((t, i) => {
      const info = infos[i];
      if (!info.ok) throw new ChainUnavailableError(`${what}: tick ${t} at block ${head.number}`, 'the node answered with a revert');
      return { tick: t, liquidityNet: (info.value as readonly [bigint, bigint])[1] };
    });
    return {
      poolId, tokenIsCurrency0,
      state: { sqrtPriceX96, tick, liquidity: liquidity.value as bigint, lpFee, protocolFee, tickSpacing: spacing, ticks, words },
      block: { number: head.number.toString(), hash: head.hash },
    };
  }
}

/** The set bits of a bitmap word, lowest first. */
function bitsOf(result: { ok: boolean; value?: unknown }, what: string): number[] {
  if (!result.ok) throw new ChainUnavailableError(`${what} read`, 'the node answered with a revert');
  const bits: number[] = [];
  let value = result.value as bigint;
  for (let bit = 0; value > 0n; bit++, value >>= 1n) if ((value & 1n) === 1n) bits.push(bit);
  return bits;
}
