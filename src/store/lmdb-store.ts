// CacheStore on disk under DATA_DIR (the default without REDIS_URL): LMDB values that survive a restart, rate windows in memory.
import { join } from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import type { CacheStore, WindowHit } from './cache-store.js';
import { untagged } from './keys.js';
import { commitCause, TurnCommits } from './lmdb-commit.js';
import { checkStoreFile } from './lmdb-file-check.js';
import { WriteHealth } from './lmdb-write-health.js';
import { MemoryStore } from './memory-store.js';
import { StoreUnavailableError } from './store-unavailable.js';
import { RecentMap } from '../memo/recent-map.js';

/** A stored value: when it expires on the service's clock (0: never) and the value. */
type Stored = [expiresAt: number, value: string];

/** The expiry index's key: an entry's expiry instant, then its key, so a sweep reads the expired ones first. */
type ExpiryKey = [expiresAt: number, key: string];

export interface LmdbStoreOptions {
  /** How often expired entries nobody reads again are removed, in ms (as MemoryStore's sweep). */
  sweepIntervalMs?: number;
  /** At most this many expired entries are removed per sweep, so one sweep never holds the event loop long. */
  sweepBatch?: number;
}

const DEFAULT_SWEEP_INTERVAL_MS = 5_000;
/** Keys remembered as absent from the file, at most; past it the set starts again. */
const MAX_ABSENT = 65_536;
const DEFAULT_SWEEP_BATCH = 10_000;
/** The key a store whose writes failed writes to learn that they land again (lmdb-write-health.ts). */
const PROBE_KEY = '\u0000probe';

function expiryFor(ttlMs: number, now: number): number {
  return ttlMs > 0 ? now + ttlMs : 0;
}

/**
 * One process per DATA_DIR (the DATA_DIR lock sees to that), so check-and-set is atomic the way
 * MemoryStore's is: every method decides synchronously and records its write in `pending`
 * before its first await, and reads look at `pending` before the disk. A write resolves only
 * once LMDB has committed it and flushed it to disk, so what a caller was told is kept
 * (ARCHITECTURE.md "Embedded store"). Reads are LMDB's synchronous reads of its memory map.
 * Failures reject with StoreUnavailableError, so routes answer 503 store_unavailable.
 */
export class LmdbStore implements CacheStore {
  /** Writes issued and not yet committed: the entry, or null for a removal. */
  private readonly pending = new Map<string, Stored | null>();
  private readonly windows: MemoryStore;
  private sweepTimer: NodeJS.Timeout | undefined;
  /**
   * Keys the file was read without: most evaluations ask for a danger flag, a safety result and a
   * policy that do not exist, and a set answers that for less than LMDB's read. Only this process
   * writes the file, and every write forgets its key here before it is issued (issue 30).
   */
  private readonly absent = new Set<string>();
  /**
   * The file's names (untagged) of the keys read lately: a fleet's keys are read again and again, and each cut and
   * joined anew was also flattened and hashed anew by the lookups below (issue 41).
   */
  private readonly names = new RecentMap<string, string>(16_384);
  /** The failure of the latest write, until a write (a request's or its own probe's) lands: ping reports it. */
  private readonly health: WriteHealth;
  /** Gives the promise lmdb makes for each turn's batch a handler, so its failure cannot end the process. */
  private readonly turns: TurnCommits;

  private constructor(
    dir: string,
    private readonly root: RootDatabase,
    private readonly values: Database<Stored, string>,
    private readonly expiries: Database<number, ExpiryKey>,
    private readonly now: () => number,
    options: LmdbStoreOptions,
  ) {
    this.health = new WriteHealth(join(dir, 'data.mdb'), () => this.record(PROBE_KEY, [0, String(this.now())]));
    this.turns = new TurnCommits(root);
    const interval = options.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS;
    this.windows = new MemoryStore(now, { sweepIntervalMs: interval });
    const batch = options.sweepBatch ?? DEFAULT_SWEEP_BATCH;
    this.sweepTimer = setInterval(() => {
      // A sweep that cannot read is retried by the next one; the requests meanwhile see the failure themselves.
      try {
        this.sweep(this.now(), batch);
      } catch {
        // nothing to do here: an unhandled throw in a timer would end the process
      }
    }, interval);
    // The sweep only bounds the file; it must never keep the process alive.
    this.sweepTimer.unref();
  }

  /** As open(), once a walk in a child process found the file whole (lmdb-file-check.ts); what the service calls. */
  static async openChecked(dir: string, now: () => number, options: LmdbStoreOptions = {}): Promise<LmdbStore> {
    await checkStoreFile(dir);
    return LmdbStore.open(dir, now, options);
  }

  /** Opens (or creates) the store in `dir`; TTLs run on `now`, the service's clock. */
  static open(dir: string, now: () => number, options: LmdbStoreOptions = {}): LmdbStore {
    try {
      // separateFlushed: each write's promise carries the flush of its own transaction (record()).
      const root = open({ path: dir, separateFlushed: true });
      const values = root.openDB<Stored, string>({ name: 'values' });
      const expiries = root.openDB<number, ExpiryKey>({ name: 'expiries' });
      return new LmdbStore(dir, root, values, expiries, now, options);
    } catch (cause) {
      throw new StoreUnavailableError(`open of ${dir}`, cause);
    }
  }

  async ping(): Promise<void> {
    this.read('ping', () => this.values.get('\u0000ping'));
    // A store that cannot write is not usable, even while its reads still answer.
    const fault = this.health.problem();
    if (fault !== null) throw new StoreUnavailableError('ping', fault);
  }

  async get(key: string): Promise<string | null> {
    return this.read('get', () => this.liveValue(key));
  }

  /** Synchronous reads, key by key, as MemoryStore serves them: no round trip to batch. */
  async getMany(keys: readonly string[]): Promise<Array<string | null>> {
    return this.getManyNow(keys);
  }

  getManyNow(keys: readonly string[]): Array<string | null> {
    return this.read('getMany', () => keys.map((key) => this.liveValue(key)));
  }

  set(key: string, value: string, ttlMs: number): Promise<void> {
    return this.write('set', key, [expiryFor(ttlMs, this.now()), value]);
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    if (this.read('setIfAbsent', () => this.liveValue(key)) !== null) return false;
    await this.write('setIfAbsent', key, [expiryFor(ttlMs, this.now()), value]);
    return true;
  }

  async compareAndSet(key: string, expected: string | null, next: string, ttlMs: number): Promise<boolean> {
    if (this.read('compareAndSet', () => this.liveValue(key)) !== expected) return false;
    await this.write('compareAndSet', key, [expiryFor(ttlMs, this.now()), next]);
    return true;
  }

  async take(key: string): Promise<string | null> {
    const value = this.read('take', () => this.liveValue(key));
    if (value !== null) await this.write('take', key, null);
    return value;
  }

  async delete(key: string): Promise<void> {
    // The removal is recorded before anything is awaited, so a call made next in this turn sees it.
    const removal = this.write('delete', key, null);
    await this.windows.delete(key);
    await removal;
  }

  // Rate windows stay in memory: a restart forgets them (docs/configuration.md, "Stores").
  hitWindow(key: string, windowMs: number, limit: number, nowMs: number): Promise<WindowHit> {
    return this.windows.hitWindow(key, windowMs, limit, nowMs);
  }

  countWindow(key: string, windowMs: number, nowMs: number): Promise<number> {
    return this.windows.countWindow(key, windowMs, nowMs);
  }

  windowHits(key: string, windowMs: number, nowMs: number): Promise<number[]> {
    return this.windows.windowHits(key, windowMs, nowMs);
  }

  /**
   * Waits for every write issued (a failed one included) to settle, then closes the file. lmdb's
   * close waits for the flush of the latest transaction, which never comes when that one failed:
   * then the file is left to the process's exit, which LMDB survives as it survives a crash.
   */
  async close(): Promise<void> {
    clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
    this.health.stop();
    await this.windows.close();
    await this.root.committed.then(undefined, () => undefined);
    const closed = this.root.close();
    if (this.health.problem() === null) await closed;
  }

  /**
   * Removes up to `limit` entries expired at `now` (default: the store's clock), oldest first.
   * Reads see them gone at once; the removal reaches the disk in the background.
   */
  sweep(now: number = this.now(), limit = DEFAULT_SWEEP_BATCH): void {
    this.windows.sweep(now);
    let removed = 0;
    for (const [expiresAt, key] of this.expiries.getKeys({ start: [0] })) {
      if (expiresAt > now || removed >= limit) break;
      removed++;
      // Only the entry this index line belongs to: a later write has moved or removed the line already.
      if (this.stored(key)?.[0] === expiresAt) this.record(key, null).catch(() => undefined);
      else this.issue(this.expiries.remove([expiresAt, key])).catch(() => undefined);
    }
  }

  /** The entry as last written (pending first), expired or not; undefined when there is none. */
  private stored(key: string): Stored | undefined {
    const pending = this.pending.get(key);
    if (pending !== undefined) return pending ?? undefined;
    if (this.absent.has(key)) return undefined;
    const entry = this.values.get(key);
    if (entry === undefined) {
      if (this.absent.size >= MAX_ABSENT) this.absent.clear();
      this.absent.add(key);
    }
    return entry;
  }

  /** `key` as a caller names it; the files keep the name without its cluster hash tag (keys.ts). */
  private liveValue(key: string): string | null {
    const entry = this.stored(this.fileName(key));
    if (entry === undefined) return null;
    // The clock only for entries that can expire, as in MemoryStore.
    if (entry[0] !== 0 && entry[0] <= this.now()) return null;
    return entry[1];
  }

  private fileName(key: string): string {
    let name = this.names.get(key);
    if (name === undefined) this.names.set(key, (name = untagged(key)));
    return name;
  }

  private read<T>(operation: string, run: () => T): T {
    try {
      return run();
    } catch (cause) {
      throw new StoreUnavailableError(operation, cause);
    }
  }

  /** `key` as a caller names it, as liveValue's. */
  private async write(operation: string, key: string, next: Stored | null): Promise<void> {
    try {
      await this.record(untagged(key), next);
    } catch (cause) {
      throw new StoreUnavailableError(operation, cause);
    }
  }

  /**
   * One LMDB write, resolved once its own transaction is flushed, rejected with the cause of a
   * failed commit (lmdb-commit.ts). A flush awaited on the database instead could be a later
   * transaction's, which never settles when that one fails.
   */
  private async issue(write: Promise<boolean>): Promise<void> {
    this.turns.issued();
    try {
      await write;
      await ((write as Promise<boolean> & { flushed?: Promise<boolean> }).flushed ?? write);
    } catch (error) {
      throw await commitCause(error);
    }
  }

  /**
   * Issues the entry and its expiry-index line in one LMDB transaction (writes of one event
   * turn commit together), visible to reads at once through `pending`; resolves once flushed.
   * A write that fails leaves the disk as it was, so its pending entry is dropped; the store
   * reports itself down until a write lands again.
   */
  private async record(key: string, next: Stored | null): Promise<void> {
    const previous = this.stored(key);
    this.absent.delete(key);
    this.pending.set(key, next);
    try {
      // The value first: when LMDB refuses it at once (a key over its size limit), nothing else was queued.
      const writes = [this.issue(next === null ? this.values.remove(key) : this.values.put(key, next))];
      if (previous !== undefined && previous[0] !== 0) writes.push(this.issue(this.expiries.remove([previous[0], key])));
      if (next !== null && next[0] !== 0) writes.push(this.issue(this.expiries.put([next[0], key], 1)));
      await Promise.all(writes);
      this.health.landed();
    } catch (cause) {
      throw this.health.failed(cause);
    } finally {
      if (this.pending.get(key) === next) this.pending.delete(key);
    }
  }
}
