// A map of values worked out before and kept for the keys met lately, bounded by starting again when full.

/**
 * What the hot path keeps to skip work it did before (a digest, a key's text, a parsed fact, a calendar day): a Map
 * whose `set` of a new key clears it first once it holds `max` keys. Starting again costs one miss per key still in
 * use, where least-recently-used order would cost bookkeeping on every hit; nothing kept here is more than a cache.
 */
export class RecentMap<K, V> extends Map<K, V> {
  constructor(private readonly max: number) {
    super();
  }

  override set(key: K, value: V): this {
    if (this.size >= this.max && !this.has(key)) this.clear();
    return super.set(key, value);
  }
}
