// The chain price: the oracle checked against the venue (both read in parallel), or the venue when the oracle gives nothing.
import type { RegistryAsset } from '../registry/registry.js';
import type { PriceFact } from '../risk/types.js';
import type { OraclePriceProvider, OracleReading } from './oracle-price.js';
import { UNAVAILABLE, type PriceProvider } from './price-provider.js';
import type { VenuePriceProvider, VenueReading } from './venue-price.js';

/**
 * - oracle reading: `oracle` (stale as the oracle says), with `deviationBps` against the venue when both exist;
 * - no oracle reading (no feed, revert, non-positive answer): `venue_v4`;
 * - neither: `unavailable`, so a chained default may follow;
 * - neither, and a read failed because the node did not answer: rejects, so the chain stops
 *   at `unavailable` instead of a built-in default (fail closed).
 */
export class OracleWithVenueCheck implements PriceProvider {
  constructor(private readonly oracle: OraclePriceProvider, private readonly venue: VenuePriceProvider | null) {}

  async quote(asset: RegistryAsset): Promise<PriceFact> {
    const [oracle, venue] = await Promise.allSettled([
      this.oracle.reading(asset),
      this.venue ? this.venue.reading(asset) : Promise.resolve(null),
    ]);
    const o: OracleReading | null = oracle.status === 'fulfilled' ? oracle.value : null;
    const v: VenueReading | null = venue.status === 'fulfilled' ? venue.value : null;
    if (o !== null) {
      const origin = v ? { ...o.origin, venue: { pool_id: v.poolId, price_usd: v.usd } } : o.origin;
      return { usd: o.usd, source: 'oracle', stale: o.stale, deviationBps: v ? deviationBps(o.usd, v.usd) : null, origin };
    }
    if (v !== null) return { usd: v.usd, source: 'venue_v4', stale: false, deviationBps: null, origin: { kind: 'venue_v4', pool_id: v.poolId, price_usd: v.usd } };
    const failed = [oracle, venue].find((result) => result.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
    return UNAVAILABLE;
  }
}

/** |oracle - venue| / oracle in whole basis points. */
export function deviationBps(oracleUsd: number, venueUsd: number): number {
  return Math.round((Math.abs(oracleUsd - venueUsd) / oracleUsd) * 10_000);
}
