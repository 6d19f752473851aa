// Evicting a bounded Map's oldest entry in constant time, however long the map has been evicting.

/**
 * The oldest entry of a Map in insertion order, for caches bounded by a cap. `map.keys().next()`
 * starts at the table's first slot and steps over every deleted slot before the first live one;
 * under steady eviction that is most of the table: 20-57 us an eviction at 100,000 keys on this
 * machine, paid by every new wallet once a cache is full. A cursor kept across calls steps over
 * each deleted slot once (about 1 us at 100,000 keys). A key set again (a least-recently-used
 * bump: delete, then set) is met at its new place, as `keys().next()` would meet it; a unit test
 * holds the two orders equal.
 */
export class EvictionCursor<K> {
  private cursor: Iterator<K>;

  constructor(private readonly map: Map<K, unknown>) {
    this.cursor = map.keys();
  }

  /** Deletes the map's oldest key and returns it; undefined when the map is empty. */
  evictOldest(): K | undefined {
    let next = this.cursor.next();
    // A finished iterator stays finished, also once the map fills again: start over.
    if (next.done) {
      this.cursor = this.map.keys();
      next = this.cursor.next();
    }
    if (next.done) return undefined;
    this.map.delete(next.value);
    return next.value;
  }
}
