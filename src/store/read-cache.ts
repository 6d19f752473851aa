// A small TTL cache for chain reads that coalesces concurrent reads of the same key into one call.
import { EvictionCursor } from './eviction-cursor.js';

interface Entry<V> {
  value: V;
  expiresAt: number;
}

/**
 * A burst of evaluations of one key makes one RPC call: the first caller starts
 * the read, later callers await the same promise, and the result is kept for
 * `ttlMs`. Failures are not cached, so a node that comes back is used at once.
 * The clock is the service's own (required, never the wall clock by default), so a test
 * that moves the service's clock also ages these entries.
 */
export class ReadCache<V> {
  private readonly values = new Map<string, Entry<V>>();
  private readonly oldest = new EvictionCursor(this.values);
  private readonly inflight = new Map<string, Promise<V>>();

  constructor(private readonly ttlMs: number, private readonly now: () => number, private readonly maxEntries = 100_000) {}

  /** The kept value when it has not expired, as `get` would answer it at once. */
  peek(key: string): V | undefined {
    return this.live(key)?.value;
  }

  get(key: string, read: () => Promise<V>): Promise<V> {
    const cached = this.live(key);
    if (cached) return Promise.resolve(cached.value);
    const running = this.inflight.get(key);
    if (running) return running;
    const started = read().then(
      (value) => {
        this.inflight.delete(key);
        this.remember(key, value);
        return value;
      },
      (error: unknown) => {
        this.inflight.delete(key);
        throw error;
      },
    );
    this.inflight.set(key, started);
    return started;
  }

  /** Drops a key, e.g. after the caller learned its value changed. */
  forget(key: string): void {
    this.values.delete(key);
  }

  private live(key: string): Entry<V> | undefined {
    const cached = this.values.get(key);
    return cached && cached.expiresAt > this.now() ? cached : undefined;
  }

  private remember(key: string, value: V): void {
    // Bounded: past the cap the oldest entries go first (Map keeps insertion order).
    if (this.values.size >= this.maxEntries) this.oldest.evictOldest();
    this.values.delete(key);
    this.values.set(key, { value, expiresAt: this.now() + this.ttlMs });
  }
}
