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
  /**
   * The fact `quote` would answer, when it is at hand without a read (this block's readings have
   * answered, or the source reads nothing); undefined otherwise. Spares a turn of promises per
   * request on the common path (issue 30).
   */
  known?(asset: RegistryAsset): PriceFact | undefined;
}

export const UNAVAILABLE: PriceFact = Object.freeze({ usd: 0, source: 'unavailable', stale: false, deviationBps: null });

/**
 * One frozen fact per pair of readings (or per asset): the readings are kept per block, so every
 * evaluation in a block gets the same fact object, whose recorded text is then written once
 * (ARCHITECTURE.md "Recorded facts"). A missing reading is keyed by NONE.
 */
export class FactMemo<T> {
  private readonly facts = new WeakMap<object, WeakMap<object, T>>();

  get(first: object | null, second: object | null, build: () => T): T {
    const a = first ?? NONE;
    const b = second ?? NONE;
    let inner = this.facts.get(a);
    if (inner === undefined) this.facts.set(a, (inner = new WeakMap()));
    let fact = inner.get(b);
    if (fact === undefined) inner.set(b, (fact = deepFreeze(build())));
    return fact;
  }
}

const NONE = Object.freeze({});

/** Freezes a value and everything in it, so recorded-facts.ts can write its text once. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

/** Prices from the registry file's `default_price_usd`, source `fallback_default`. */
export class DefaultPriceProvider implements PriceProvider {
  private readonly memo = new FactMemo<PriceFact>();

  quote(asset: RegistryAsset): Promise<PriceFact> {
    return Promise.resolve(this.known(asset));
  }

  known(asset: RegistryAsset): PriceFact {
    const usd = asset.default_price_usd;
    if (usd === null) return UNAVAILABLE;
    return this.memo.get(asset, null, () => ({ usd, source: 'fallback_default', stale: false, deviationBps: null, origin: { kind: 'default', price_usd: usd } }));
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

  /** At once while each source asked knows its answer without a read; from the first that does not, in turn. */
  quote(asset: RegistryAsset): Promise<PriceFact> {
    const settled = this.settled(asset);
    return typeof settled === 'number' ? this.quoteFrom(settled, asset) : Promise.resolve(settled);
  }

  known(asset: RegistryAsset): PriceFact | undefined {
    const settled = this.settled(asset);
    return typeof settled === 'number' ? undefined : settled;
  }

  /** The fact the sources give without a read, or the index of the first source that must read for it. */
  private settled(asset: RegistryAsset): PriceFact | number {
    for (let index = 0; index < this.sources.length; index++) {
      let fact: PriceFact | undefined;
      try {
        fact = this.sources[index].known?.(asset);
      } catch {
        fact = undefined;
      }
      if (fact === undefined) return index;
      if (fact.source !== 'unavailable') return fact;
    }
    return UNAVAILABLE;
  }

  private async quoteFrom(first: number, asset: RegistryAsset): Promise<PriceFact> {
    for (const source of this.sources.slice(first)) {
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
