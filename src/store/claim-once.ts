// Runs a computation once per key across instances sharing the store: claim, compute, keep; others replay or wait.
import type { CacheStore } from './cache-store.js';

export type ClaimOutcome<T> = { kind: 'computed' | 'replayed'; value: T } | { kind: 'conflict' };

interface StoredEntry<T> {
  fingerprint: string;
  state: 'pending' | 'done';
  outcome?: T;
}

const POLL_MS = 20;

/** Thrown when another holder of the claim did not finish within the wait. */
export class ClaimBusyError extends Error {
  override name = 'ClaimBusyError';
}

/**
 * How many polls make `waitMs` of waiting for another instance's answer. Polls are counted,
 * not compared against a clock: the other instance works in real time, and a frozen test
 * clock must never turn the wait into an endless one.
 */
function pollsFor(waitMs: number): number {
  return Math.max(1, Math.ceil(waitMs / POLL_MS));
}

/**
 * One key, one computation: the first caller claims the key (set-if-absent), computes, and
 * keeps the value when `keep` says so; callers with the same fingerprint meanwhile wait for it
 * (in process on a promise, across instances by polling) and replay it; a different
 * fingerprint is a conflict. A value not kept releases the claim, so the key can be used again.
 */
export class ClaimOnce<T> {
  private readonly inflight = new Map<string, { fingerprint: string; done: Promise<ClaimOutcome<T>> }>();

  constructor(
    private readonly store: CacheStore,
    private readonly ttlMs: number,
    private readonly waitMs: number,
    private readonly keep: (value: T) => boolean,
    /** What the error says when the wait runs out, in the caller's words. */
    private readonly busyMessage = 'an earlier request with this key is still being worked on',
  ) {}

  run(key: string, fingerprint: string, compute: () => Promise<T>): Promise<ClaimOutcome<T>> {
    const local = this.inflight.get(key);
    if (local) {
      if (local.fingerprint !== fingerprint) return Promise.resolve({ kind: 'conflict' });
      return local.done.then((outcome) => (outcome.kind === 'computed' ? { kind: 'replayed', value: outcome.value } : outcome));
    }
    const done = this.claimOrReplay(key, fingerprint, compute).finally(() => this.inflight.delete(key));
    this.inflight.set(key, { fingerprint, done });
    return done;
  }

  private async claimOrReplay(key: string, fingerprint: string, compute: () => Promise<T>): Promise<ClaimOutcome<T>> {
    let pollsLeft = pollsFor(this.waitMs);
    const pending = JSON.stringify({ fingerprint, state: 'pending' } satisfies StoredEntry<T>);
    for (;;) {
      const stored = await this.store.get(key);
      if (stored === null) {
        if (await this.store.setIfAbsent(key, pending, this.ttlMs)) return { kind: 'computed', value: await this.computeAndKeep(key, fingerprint, compute) };
        continue;
      }
      const entry = JSON.parse(stored) as StoredEntry<T>;
      if (entry.fingerprint !== fingerprint) return { kind: 'conflict' };
      if (entry.state === 'done' && entry.outcome !== undefined) return { kind: 'replayed', value: entry.outcome };
      // Another instance holds the claim: wait for its answer rather than compute twice.
      if (pollsLeft-- <= 0) throw new ClaimBusyError(this.busyMessage);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  private async computeAndKeep(key: string, fingerprint: string, compute: () => Promise<T>): Promise<T> {
    let value: T;
    try {
      value = await compute();
    } catch (error) {
      await this.store.delete(key).catch(() => undefined);
      throw error;
    }
    // The value is already final (audited, settled): the caller gets it even if keeping it fails.
    const keep = this.keep(value)
      ? this.store.set(key, JSON.stringify({ fingerprint, state: 'done', outcome: value } satisfies StoredEntry<T>), this.ttlMs)
      : this.store.delete(key);
    await keep.catch(() => undefined);
    return value;
  }
}
