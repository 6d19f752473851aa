// Marks every cache-store failure as the store's, so callers answer 503 store_unavailable rather than 500.
import { DependencyError, STORE_UNAVAILABLE } from '../catalogue/failures.js';
import type { CacheStore, WindowHit } from './cache-store.js';

/**
 * A store failure whose message an operator may read as it is (`/status.json`): it names the file
 * and what to do, never an address or a credential, which a client library's error text may hold.
 */
export class StoreFault extends Error {}

/** A store call that did not complete; the message (for the log) names the operation and the client's error. */
export class StoreUnavailableError extends DependencyError {
  /** The cause when it is a StoreFault, for the status document; null for a client library's error. */
  readonly fault: StoreFault | null;

  constructor(operation: string, cause: unknown) {
    super(STORE_UNAVAILABLE, `cache store ${operation} failed: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'StoreUnavailableError';
    this.fault = cause instanceof StoreFault ? cause : null;
  }
}

function guard<T>(operation: string, pending: Promise<T>): Promise<T> {
  return pending.catch((cause: unknown) => {
    throw cause instanceof StoreUnavailableError ? cause : new StoreUnavailableError(operation, cause);
  });
}

/**
 * Wraps a store that can fail (Redis). Without it an ioredis error is indistinguishable
 * from a bug by the time it reaches a route, which then can only answer 500.
 */
export class GuardedStore implements CacheStore {
  constructor(private readonly inner: CacheStore) {}

  ping(): Promise<void> {
    return guard('ping', this.inner.ping());
  }

  get(key: string): Promise<string | null> {
    return guard('get', this.inner.get(key));
  }

  getMany(keys: readonly string[]): Promise<Array<string | null>> {
    return guard('getMany', this.inner.getMany(keys));
  }

  set(key: string, value: string, ttlMs: number): Promise<void> {
    return guard('set', this.inner.set(key, value, ttlMs));
  }

  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    return guard('setIfAbsent', this.inner.setIfAbsent(key, value, ttlMs));
  }

  compareAndSet(key: string, expected: string | null, next: string, ttlMs: number): Promise<boolean> {
    return guard('compareAndSet', this.inner.compareAndSet(key, expected, next, ttlMs));
  }

  take(key: string): Promise<string | null> {
    return guard('take', this.inner.take(key));
  }

  delete(key: string): Promise<void> {
    return guard('delete', this.inner.delete(key));
  }

  hitWindow(key: string, windowMs: number, limit: number, nowMs: number): Promise<WindowHit> {
    return guard('hitWindow', this.inner.hitWindow(key, windowMs, limit, nowMs));
  }

  countWindow(key: string, windowMs: number, nowMs: number): Promise<number> {
    return guard('countWindow', this.inner.countWindow(key, windowMs, nowMs));
  }

  windowHits(key: string, windowMs: number, nowMs: number): Promise<number[]> {
    return guard('windowHits', this.inner.windowHits(key, windowMs, nowMs));
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
