// The chain price: the oracle checked against the venue (both read in parallel), or the venue when the oracle gives nothing.
import type { RegistryAsset } from '../registry/registry.js';
import type { PriceFact } from '../../risk/types.js';
import type { OraclePriceProvider, OracleReading } from './oracle-price.js';
import { FactMemo, UNAVAILABLE, type PriceProvider } from './price-provider.js';
import type { VenuePriceProvider, VenueReading } from './venue-price.js';

/**
 * The two readings, or `unavailable` so a chained default may follow; when neither gave a reading
 * and a read failed because the node did not answer, it rejects, so the chain stops at
 * `unavailable` instead of a built-in default (fail closed).
 */
export class OracleWithVenueCheck implements PriceProvider {
  private readonly memo = new FactMemo<PriceFact | null>();

  constructor(private readonly oracle: OraclePriceProvider, private readonly venue: VenuePriceProvider | null) {}

  /** The fact from this block's two readings, once both have answered. */
  known(asset: RegistryAsset): PriceFact | undefined {
    const o = this.oracle.knownReading(asset);
    const v = this.venue ? this.venue.knownReading(asset) : { value: null };
    if (o === undefined || v === undefined) return undefined;
    return this.memo.get(o.value, v.value, () => combineReadings(o.value, v.value)) ?? UNAVAILABLE;
  }

  async quote(asset: RegistryAsset): Promise<PriceFact> {
    const [oracle, venue] = await Promise.allSettled([
      this.oracle.reading(asset),
      this.venue ? this.venue.reading(asset) : Promise.resolve(null),
    ]);
    const o: OracleReading | null = oracle.status === 'fulfilled' ? oracle.value : null;
    const v: VenueReading | null = venue.status === 'fulfilled' ? venue.value : null;
    const fact = this.memo.get(o, v, () => combineReadings(o, v));
    if (fact !== null) return fact;
    const failed = [oracle, venue].find((result) => result.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
    return UNAVAILABLE;
  }
}

/**
 * ARCHITECTURE.md "Prices that disagree". The quoted price (`usd`, `source`):
 * - a live oracle round: `oracle`, the venue's price beside it as the alternative;
 * - a stale round and a venue price: `venue_v4` (a stale oracle is no quote when a live price
 *   exists), `stale` still set, the stale round's price beside it as the alternative;
 * - a stale round alone: `oracle`, stale;
 * - no round: `venue_v4`; neither: null.
 * `deviationBps` compares the two whenever both exist; the engine judges ceilings at the higher.
 */
export function combineReadings(o: OracleReading | null, v: VenueReading | null): PriceFact | null {
  const venueOrigin = v ? { pool_id: v.poolId, price_usd: v.usd } : null;
  if (o === null) {
    return v ? { usd: v.usd, source: 'venue_v4', stale: false, deviationBps: null, alternative: null, origin: { kind: 'venue_v4', ...venueOrigin! } } : null;
  }
  const origin = venueOrigin ? { ...o.origin, venue: venueOrigin } : o.origin;
  if (v === null) return { usd: o.usd, source: 'oracle', stale: o.stale, deviationBps: null, alternative: null, origin };
  const deviation = deviationBps(o.usd, v.usd);
  if (o.stale) return { usd: v.usd, source: 'venue_v4', stale: true, deviationBps: deviation, alternative: { usd: o.usd, source: 'oracle' }, origin };
  return { usd: o.usd, source: 'oracle', stale: false, deviationBps: deviation, alternative: { usd: v.usd, source: 'venue_v4' }, origin };
}

/** |oracle - venue| / oracle in whole basis points. */
export function deviationBps(oracleUsd: number, venueUsd: number): number {
  return Math.round((Math.abs(oracleUsd - venueUsd) / oracleUsd) * 10_000);
}
