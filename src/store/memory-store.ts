// In-process CacheStore (the default): Maps with lazy expiry plus a periodic sweep.
import type { CacheStore, WindowHit } from './cache-store.js';

/** Tuning knobs for MemoryStore. */
export interface MemoryStoreOptions {
  /**
   * How often expired entries nobody reads again are swept out, in ms. Lazy expiry
   * alone would let write-once keys (nonces, idempotency keys) grow without bound.
   */
  sweepIntervalMs?: number;
}

const DEFAULT_SWEEP_INTERVAL_MS = 5_000;

/** A stored value; expiresAt is an instant of the store's clock, Infinity meaning never. */
class ValueEntry {
  constructor(
    readonly value: string,
    readonly expiresAt: number,
  ) {}
}

/**
 * Hit timestamps of one sliding window, oldest first. expiresAt mirrors Redis'
 * PEXPIRE windowMs after the last admitted hit, so the sweep can drop idle windows
 * without knowing the caller's clock.
 */
class WindowEntry {
  hits: number[] = [];
  expiresAt = 0;
}

function expiryFor(ttlMs: number, now: number): number {
  return ttlMs > 0 ? now + ttlMs : Infinity;
}

/** Index of the first hit newer than cutoff (hits are sorted ascending). */
function firstInside(hits: number[], cutoff: number): number {
  let index = 0;
  while (index < hits.length && hits[index] <= cutoff) index++;
  return index;
}

/** Inserts keeping the array sorted; appending is the normal case (time moves forward). */
function insertSorted(hits: number[], at: number): void {
  let index = hits.length;
  while (index > 0 && hits[index - 1] > at) index--;
  if (index === hits.length) hits.push(at);
  else hits.splice(index, 0, at);
}

function retryAfter(hits: number[], windowMs: number, nowMs: number): number {
  // With no hit to wait for (limit <= 0) the best honest answer is a full window.
  if (hits.length === 0) return windowMs;
  return Math.max(1, Math.ceil(hits[0] + windowMs - nowMs));
}

/**
 * Single-process store. Every method runs to completion without awaiting, so the
 * check-and-set operations are atomic with respect to other callers in this process.
 * Values and windows live in separate Maps (unlike Redis, where they share one
 * keyspace): do not reuse a key for both kinds. delete() removes either kind.
 * TTLs run on the clock given (the service's one clock), so a test moves it rather than sleeps.
 */
export class MemoryStore implements CacheStore {
  private readonly values = new Map<string, ValueEntry>();
  private readonly windows = new Map<string, WindowEntry>();
  private sweepTimer: NodeJS.Timeout | undefined;

  constructor(private readonly now: () => number, options: MemoryStoreOptions = {}) {
    const interval = options.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS;
    this.sweepTimer = setInterval(() => this.sweep(), interval);
    // The sweep only bounds memory; it must never keep the process alive.
    this.sweepTimer.unref();
  }

  /** Live entries held (values plus windows), expired-but-unswept ones included. */
  get size(): number {
    return this.values.size + this.windows.size;
  }

  async ping(): Promise<void> {}

  async get(key: string): Promise<string | null> {
    return this.liveValue(key);
  }

  async getMany(keys: readonly string[]): Promise<Array<string | null>> {
    return this.getManyNow(keys);
  }

  getManyNow(keys: readonly string[]): Array<string | null> {
    return keys.map((key) => this.liveValue(key));
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    this.values.set(key, new ValueEntry(value, expiryFor(ttlMs, this.now())));
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    if (this.liveValue(key) !== null) return false;
    this.values.set(key, new ValueEntry(value, expiryFor(ttlMs, this.now())));
    return true;
  }

  async compareAndSet(key: string, expected: string | null, next: string, ttlMs: number): Promise<boolean> {
    if (this.liveValue(key) !== expected) return false;
    this.values.set(key, new ValueEntry(next, expiryFor(ttlMs, this.now())));
    return true;
  }

  async take(key: string): Promise<string | null> {
    const value = this.liveValue(key);
    if (value !== null) this.values.delete(key);
    return value;
  }

  async delete(key: string): Promise<void> {
    this.values.delete(key);
    this.windows.delete(key);
  }

  async hitWindow(key: string, windowMs: number, limit: number, nowMs: number): Promise<WindowHit> {
    const now = this.now();
    let window = this.liveWindow(key, now);
    if (window) {
      const inside = firstInside(window.hits, nowMs - windowMs);
      if (inside > 0) window.hits.splice(0, inside);
    }
    const count = window ? window.hits.length : 0;
    if (count >= limit) {
      // Like Redis, a window whose hits all aged out is no longer a key.
      if (window && count === 0) this.windows.delete(key);
      return { allowed: false, count, retryAfterMs: retryAfter(window ? window.hits : [], windowMs, nowMs) };
    }
    if (!window) {
      window = new WindowEntry();
      this.windows.set(key, window);
    }
    insertSorted(window.hits, nowMs);
    window.expiresAt = now + windowMs;
    return { allowed: true, count: count + 1, retryAfterMs: 0 };
  }

  async countWindow(key: string, windowMs: number, nowMs: number): Promise<number> {
    const window = this.liveWindow(key, this.now());
    if (!window) return 0;
    // Read-only: pruning here could drop hits a longer window on the same key still needs.
    return window.hits.length - firstInside(window.hits, nowMs - windowMs);
  }

  async windowHits(key: string, windowMs: number, nowMs: number): Promise<number[]> {
    const window = this.liveWindow(key, this.now());
    if (!window) return [];
    return window.hits.slice(firstInside(window.hits, nowMs - windowMs));
  }

  async close(): Promise<void> {
    clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
    this.values.clear();
    this.windows.clear();
  }

  /** Drops every expired entry; runs from the unref'd timer. */
  sweep(now: number = this.now()): void {
    for (const [key, entry] of this.values) {
      if (entry.expiresAt <= now) this.values.delete(key);
    }
    for (const [key, window] of this.windows) {
      if (window.expiresAt <= now) this.windows.delete(key);
    }
  }

  private liveValue(key: string): string | null {
    const entry = this.values.get(key);
    if (entry === undefined) return null;
    // The clock only for entries that can expire: most hot-path keys have a TTL, but
    // skipping it for the rest is free.
    if (entry.expiresAt !== Infinity && entry.expiresAt <= this.now()) {
      this.values.delete(key);
      return null;
    }
    return entry.value;
  }

  private liveWindow(key: string, now: number): WindowEntry | undefined {
    const window = this.windows.get(key);
    if (window !== undefined && window.expiresAt <= now) {
      this.windows.delete(key);
      return undefined;
    }
    return window;
  }
}
