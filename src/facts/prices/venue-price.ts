// Prices from the registry venue's Uniswap v4 pool, read through StateView (slot0 and liquidity).
import { getAddress, type Address } from 'viem';
import { PerBlockCache } from '../chain/block-caches.js';
import type { ChainReads } from '../chain/chain-reads.js';
import type { Head } from '../chain/chain-head.js';
import { poolIdOf, quotePerToken, stateViewAbi, venuePoolKey } from '../chain/venue-pool.js';
import type { RegistryAsset, Venue } from '../registry/registry.js';
import type { PriceFact } from '../../risk/types.js';
import { FactMemo, UNAVAILABLE, type PriceProvider } from './price-provider.js';

export interface VenueReading {
  usd: number;
  liquidity: bigint;
  poolId: string;
}

/**
 * The quote token is a USD stablecoin valued at 1 USD. Read once per block, like the oracle.
 * A pool that is not initialised or holds no liquidity gives no reading; a node that does not
 * answer, or a head the service cannot confirm, rejects.
 */
export class VenuePriceProvider implements PriceProvider {
  private readonly cache = new PerBlockCache<VenueReading | null>();
  private readonly memo = new FactMemo<PriceFact>();
  private readonly stateView: Address;
  /** Each asset's pool id and side, worked out once: a pool id is a keccak of the pool key. */
  private readonly pools = new Map<string, { poolId: `0x${string}`; tokenIsCurrency0: boolean } | null>();

  constructor(private readonly chain: ChainReads, private readonly venue: Venue) {
    this.stateView = getAddress(venue.state_view);
  }

  async reading(asset: RegistryAsset): Promise<VenueReading | null> {
    const pool = this.poolOf(asset.contract_address);
    if (pool === null) return null;
    const { poolId, tokenIsCurrency0 } = pool;
    const head = await this.chain.head.use();
    return this.cache.get(poolId, head, () => this.read(poolId, tokenIsCurrency0, asset.decimals, head));
  }

  /** This block's reading once it has answered (`{ value: null }`: no pool, or one without liquidity); undefined while unknown. */
  knownReading(asset: RegistryAsset): { value: VenueReading | null } | undefined {
    const pool = this.poolOf(asset.contract_address);
    if (pool === null) return { value: null };
    const head = this.chain.head.current();
    return head === null ? undefined : this.cache.peek(pool.poolId, head);
  }

  private poolOf(token: string): { poolId: `0x${string}`; tokenIsCurrency0: boolean } | null {
    const known = this.pools.get(token);
    if (known !== undefined) return known;
    const key = venuePoolKey(this.venue, token);
    const pool = key === null ? null : { poolId: poolIdOf(key), tokenIsCurrency0: key.currency0 === getAddress(token) };
    if (this.pools.size < 10_000) this.pools.set(token, pool);
    return pool;
  }

  async quote(asset: RegistryAsset): Promise<PriceFact> {
    const reading = await this.reading(asset);
    return reading
      ? this.memo.get(reading, null, () => ({ usd: reading.usd, source: 'venue_v4', stale: false, deviationBps: null, origin: { kind: 'venue_v4', pool_id: reading.poolId, price_usd: reading.usd } }))
      : UNAVAILABLE;
  }

  private async read(poolId: `0x${string}`, tokenIsCurrency0: boolean, decimals: number, head: Head): Promise<VenueReading | null> {
    const [slot0, liquidity] = await this.chain.reads.read(
      [
        { address: this.stateView, abi: stateViewAbi, functionName: 'getSlot0', args: [poolId] },
        { address: this.stateView, abi: stateViewAbi, functionName: 'getLiquidity', args: [poolId] },
      ],
      `venue read of pool ${poolId}`,
      head.number,
    );
    if (!slot0.ok || !liquidity.ok) return null;
    const sqrtPriceX96 = (slot0.value as readonly [bigint, number, number, number])[0];
    const depth = liquidity.value as bigint;
    if (sqrtPriceX96 === 0n || depth === 0n) return null;
    const price = quotePerToken(sqrtPriceX96, tokenIsCurrency0, decimals, this.venue.quote_token.decimals);
    if (!Number.isFinite(price) || price <= 0) return null;
    // Ten significant digits: float noise of the square must not leak into notionals and audit records.
    return { usd: Number(price.toPrecision(10)), liquidity: depth, poolId };
  }
}
