// The venue fact of an evaluation: the asset's v4 pool state at the evaluated block in the engine's JSON form, or why none was read (ARCHITECTURE.md "Price impact").
import type { RegistryAsset, Venue } from '../registry/registry.js';
import type { ChainReads } from '../chain/chain-reads.js';
import { deepFreeze } from '../prices/price-provider.js';
import type { VenueFact, VenuePoolFact, VenueUnread } from '../../risk/types.js';
import { PoolStateReader, type VenuePool } from './pool-state-reader.js';

const unread = (why: VenueUnread['why']): VenueUnread => Object.freeze({ kind: 'unread', why });

/** No chain is read (offline): no pool state exists. */
export const VENUE_OFFLINE = unread('offline');
/** The registry names no venue, or the asset has no pool on it (an unregistered asset, the quote token itself). */
export const NO_VENUE = unread('no_venue');
const NO_POOL = unread('no_pool');

/**
 * One frozen fact per pool state read, so every verdict of a block shares the object: its recorded
 * document is written and hashed once (src/evaluation/shared-facts.ts), and the engine turns its
 * amounts into bigints once (src/risk/price-impact.ts). A node that does not answer rejects, so the
 * evaluation fails closed like every chain read.
 */
export class VenueFacts {
  private readonly reader: PoolStateReader | null;
  private readonly facts = new WeakMap<VenuePool, VenuePoolFact>();

  constructor(reads: ChainReads, venue: Venue | null) {
    this.reader = venue === null ? null : new PoolStateReader(reads, venue);
  }

  async fact(asset: RegistryAsset): Promise<VenueFact> {
    if (this.reader === null || this.reader.poolOf(asset.contract_address) === null) return NO_VENUE;
    const pool = await this.reader.pool(asset);
    if (pool === null) return NO_POOL;
    let fact = this.facts.get(pool);
    if (fact === undefined) this.facts.set(pool, (fact = deepFreeze(poolFact(pool))));
    return fact;
  }
}

function poolFact(pool: VenuePool): VenuePoolFact {
  const { state } = pool;
  return {
    kind: 'pool',
    pool_id: pool.poolId,
    token_is_currency0: pool.tokenIsCurrency0,
    sqrt_price_x96: state.sqrtPriceX96.toString(),
    tick: state.tick,
    liquidity: state.liquidity.toString(),
    lp_fee: state.lpFee,
    protocol_fee: state.protocolFee,
    tick_spacing: state.tickSpacing,
    ticks: state.ticks.map((tick) => [tick.tick, tick.liquidityNet.toString()]),
    words: [state.words.lowest, state.words.highest],
    block: { number: pool.block.number, hash: pool.block.hash },
  };
}
