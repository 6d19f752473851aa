// The price-provider contract and the built-in-default source (oracle and venue sources plug in here).
import { ChainUnavailableError } from '../chain/errors.js';
import type { PriceFact } from '../../risk/types.js';
import type { RegistryAsset } from '../registry/registry.js';

export interface PriceProvider {
  /**
   * A price for the asset, never a rejection for missing data: a source that
   * cannot price answers `unavailable`, which the engine denies (fail closed).
   */
  quote(asset: RegistryAsset): Promise<PriceFact>;
}

export const UNAVAILABLE: PriceFact = Object.freeze({ usd: 0, source: 'unavailable', stale: false, deviationBps: null });

/** Prices from the registry file's `default_price_usd`, source `fallback_default`. */
export class DefaultPriceProvider implements PriceProvider {
  async quote(asset: RegistryAsset): Promise<PriceFact> {
    if (asset.default_price_usd === null) return UNAVAILABLE;
    return {
      usd: asset.default_price_usd, source: 'fallback_default', stale: false, deviationBps: null,
      origin: { kind: 'default', price_usd: asset.default_price_usd },
    };
  }
}

/**
 * Asks each source in order and keeps the first that prices the asset; a source
 * that throws counts as unavailable, so one dead source never yields an allow.
 * A source that throws ChainUnavailableError (the node did not answer) ends the
 * chain at `unavailable`: an RPC outage must not quietly become a default price.
 */
export class ChainedPriceProvider implements PriceProvider {
  constructor(private readonly sources: readonly PriceProvider[]) {}

  async quote(asset: RegistryAsset): Promise<PriceFact> {
    for (const source of this.sources) {
      try {
        const fact = await source.quote(asset);
        if (fact.source !== 'unavailable') return fact;
      } catch (error) {
        if (error instanceof ChainUnavailableError) return UNAVAILABLE;
        // Any other failure falls through to the next source; the last resort is unavailable.
      }
    }
    return UNAVAILABLE;
  }
}
