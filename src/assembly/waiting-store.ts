// The cache store while a start on a full disk waits to open it: every call fails as the store's, naming the full
// disk, and once it opens every call is the store's own (ARCHITECTURE.md "A full disk at start").
import type { CacheStore, WindowHit } from '../store/cache-store.js';
import { StoreFault, StoreUnavailableError } from '../store/store-unavailable.js';

/** Where the store comes from: null while it waits, with the reason. */
export interface StoreOpening {
  store(): CacheStore | null;
  problem(): string | null;
}

/**
 * Fails closed while waiting: routes answer 503 `store_unavailable`, evaluations the `error` verdict, and
 * `/status.json` reports the store down with the reason (a StoreFault's words are shown as they are).
 * Closing is left to the opening, which owns what it opened.
 */
export class WaitingStore implements CacheStore {
  constructor(private readonly opening: StoreOpening) {}

  private open(operation: string): CacheStore {
    const store = this.opening.store();
    if (store !== null) return store;
    throw new StoreUnavailableError(operation, new StoreFault(this.opening.problem() ?? 'the store is not open yet'));
  }

  async ping(): Promise<void> {
    return this.open('ping').ping();
  }

  async get(key: string): Promise<string | null> {
    return this.open('get').get(key);
  }

  async getMany(keys: readonly string[]): Promise<Array<string | null>> {
    return this.open('getMany').getMany(keys);
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    return this.open('set').set(key, value, ttlMs);
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    return this.open('setIfAbsent').setIfAbsent(key, value, ttlMs);
  }

  async compareAndSet(key: string, expected: string | null, next: string, ttlMs: number): Promise<boolean> {
    return this.open('compareAndSet').compareAndSet(key, expected, next, ttlMs);
  }

  async take(key: string): Promise<string | null> {
    return this.open('take').take(key);
  }

  async delete(key: string): Promise<void> {
    return this.open('delete').delete(key);
  }

  async hitWindow(key: string, windowMs: number, limit: number, nowMs: number): Promise<WindowHit> {
    return this.open('hitWindow').hitWindow(key, windowMs, limit, nowMs);
  }

  async countWindow(key: string, windowMs: number, nowMs: number): Promise<number> {
    return this.open('countWindow').countWindow(key, windowMs, nowMs);
  }

  async windowHits(key: string, windowMs: number, nowMs: number): Promise<number[]> {
    return this.open('windowHits').windowHits(key, windowMs, nowMs);
  }

  async close(): Promise<void> {}
}
