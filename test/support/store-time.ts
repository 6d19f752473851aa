// How the cache-store contract lets a TTL pass: move the store's clock, or poll a store whose clock is its own.
import assert from 'node:assert/strict';
import type { ManualClock } from './manual-clock.js';
import { waitUntil } from './wait-until.js';

export interface StoreTime {
  /**
   * A TTL that has not run out by the read right after the write: any on a moved clock; on Redis's own clock, long
   * enough that a busy machine (a whole suite on two cores) still reads before it expires.
   */
  shortTtlMs: number;
  /** Lets `ms` pass on the store's clock; resolves once `expired()` holds. */
  pass(ms: number, expired: () => Promise<boolean>): Promise<void>;
}

/** A store on an injected clock (MemoryStore): move it, and the entries are gone at once. */
export function movedClock(clock: ManualClock): StoreTime {
  return {
    shortTtlMs: 60,
    async pass(ms, expired) {
      clock.advance(ms);
      assert.ok(await expired(), `not expired after the clock moved ${ms} ms`);
    },
  };
}

/**
 * Redis expires keys on Redis's own clock, which a test cannot move: wait for the
 * expiry itself (small TTLs, polled, with a deadline) rather than sleep a fixed time.
 */
export function polledExpiry(withinMs = 5_000): StoreTime {
  return {
    // 60 ms expired before the read that follows the write on a loaded CI machine (a cluster suite, 2026-11-28).
    shortTtlMs: 1_000,
    pass: (ms, expired) => waitUntil(expired, `keys with a ${ms} ms TTL still present`, withinMs),
  };
}
