// request_id idempotency: replay the stored response, refuse a reused key with another body.
import { idempotencyKey } from '../store/keys.js';
import type { CacheStore } from '../store/cache-store.js';
import type { EvaluationOutcome } from './evaluate-trade.js';

export type IdempotentOutcome = EvaluationOutcome | { kind: 'conflict' };

interface StoredEntry {
  fingerprint: string;
  state: 'pending' | 'done';
  outcome?: EvaluationOutcome;
}

const POLL_MS = 20;

/**
 * How many polls make `waitMs` of waiting for another instance's answer. Polls are counted,
 * not compared against a clock: the other instance works in real time, and a frozen test
 * clock must never turn the wait into an endless one.
 */
function pollsFor(waitMs: number): number {
  return Math.max(1, Math.ceil(waitMs / POLL_MS));
}

/**
 * Keys are scoped to channel and wallet, so nobody can read another wallet's
 * verdict by guessing its key. Only verdicts are kept: a 429 or an error
 * produced no verdict and no audit record, so a retry evaluates afresh.
 */
export class IdempotencyCache {
  private readonly inflight = new Map<string, { fingerprint: string; done: Promise<IdempotentOutcome> }>();

  constructor(private readonly store: CacheStore, private readonly ttlMs: number, private readonly waitMs = 5_000) {}

  run(scope: string, requestId: string, fingerprint: string, compute: () => Promise<EvaluationOutcome>): Promise<IdempotentOutcome> {
    const key = idempotencyKey(scope, requestId);
    const local = this.inflight.get(key);
    if (local) return local.fingerprint === fingerprint ? local.done : Promise.resolve({ kind: 'conflict' });
    const done = this.claimOrReplay(key, fingerprint, compute).finally(() => this.inflight.delete(key));
    this.inflight.set(key, { fingerprint, done });
    return done;
  }

  private async claimOrReplay(key: string, fingerprint: string, compute: () => Promise<EvaluationOutcome>): Promise<IdempotentOutcome> {
    let pollsLeft = pollsFor(this.waitMs);
    const pending = JSON.stringify({ fingerprint, state: 'pending' } satisfies StoredEntry);
    for (;;) {
      const stored = await this.store.get(key);
      if (stored === null) {
        if (await this.store.setIfAbsent(key, pending, this.ttlMs)) return this.computeAndKeep(key, fingerprint, compute);
        continue;
      }
      const entry = JSON.parse(stored) as StoredEntry;
      if (entry.fingerprint !== fingerprint) return { kind: 'conflict' };
      if (entry.state === 'done' && entry.outcome) return entry.outcome;
      // Another instance is evaluating this key: wait for its answer rather than evaluate twice.
      if (pollsLeft-- <= 0) throw new Error('an earlier request with this request_id is still being evaluated');
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  private async computeAndKeep(key: string, fingerprint: string, compute: () => Promise<EvaluationOutcome>): Promise<EvaluationOutcome> {
    let outcome: EvaluationOutcome;
    try {
      outcome = await compute();
    } catch (error) {
      await this.store.delete(key).catch(() => undefined);
      throw error;
    }
    // The verdict is already audited: the caller gets it even if keeping it for replay fails.
    const keep = outcome.kind === 'verdict'
      ? this.store.set(key, JSON.stringify({ fingerprint, state: 'done', outcome } satisfies StoredEntry), this.ttlMs)
      : this.store.delete(key);
    await keep.catch(() => undefined);
    return outcome;
  }
}
