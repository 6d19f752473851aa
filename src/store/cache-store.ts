// The cache-store contract shared by the in-memory and Redis implementations.

/** Outcome of counting one hit in a sliding window. */
export interface WindowHit {
  /** True when the hit was admitted (the count before it was below the limit). */
  allowed: boolean;
  /** Hits inside the window after this call (a refused hit is not recorded). */
  count: number;
  /** When refused: milliseconds until the oldest hit leaves the window; else 0. */
  retryAfterMs: number;
}

/**
 * Everything the service keeps outside its audit log: rate windows, short-lived
 * keys (idempotency, nonces, revocations, danger flags, policies) and atomic
 * check-and-set. Every method rejects when the backing store is unreachable, so
 * callers can fail closed.
 */
export interface CacheStore {
  /** Resolves when the store answers; rejects when it does not. */
  ping(): Promise<void>;
  get(key: string): Promise<string | null>;
  /** Several values in one round trip, in the order of `keys`; null where a key is absent. */
  getMany(keys: readonly string[]): Promise<Array<string | null>>;
  /**
   * getMany's answer read at once, for a store that holds its values in this process (LMDB, memory); absent on a
   * store across the network (Redis). Throws what getMany rejects with. Spares the evaluation a turn of promises.
   */
  getManyNow?(keys: readonly string[]): Array<string | null>;
  /** Sets a value; ttlMs <= 0 means no expiry (and clears an earlier TTL). */
  set(key: string, value: string, ttlMs: number): Promise<void>;
  /** Atomic: sets only when the key is absent; true when this call set it. */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
  /**
   * Atomic compare-and-set: replaces the value only when the current value equals
   * `expected` (null meaning absent); true when it replaced it.
   */
  compareAndSet(key: string, expected: string | null, next: string, ttlMs: number): Promise<boolean>;
  /** Atomic get-and-delete, for single-use values such as nonces. */
  take(key: string): Promise<string | null>;
  delete(key: string): Promise<void>;
  /**
   * Sliding-window counter: admits a hit at `nowMs` when fewer than `limit` hits
   * fall inside (nowMs - windowMs, nowMs], and records it only when admitted.
   * Hits stamped later than `nowMs` (clock skew between instances) still count, so
   * skew errs towards refusing. The whole window is dropped windowMs of real time
   * after its last admitted hit. Use window keys only for windows: in Redis they
   * share the keyspace with plain values, in memory they do not.
   */
  hitWindow(key: string, windowMs: number, limit: number, nowMs: number): Promise<WindowHit>;
  /** Hits currently inside the window, without recording one. */
  countWindow(key: string, windowMs: number, nowMs: number): Promise<number>;
  /** Times (ms, ascending) of the hits inside (nowMs - windowMs, +inf), without recording one. */
  windowHits(key: string, windowMs: number, nowMs: number): Promise<number[]>;
  close(): Promise<void>;
}
