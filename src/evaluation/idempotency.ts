// request_id idempotency: replay the stored response, refuse a reused key with another body.
import { idempotencyKey } from '../store/keys.js';
import type { CacheStore } from '../store/cache-store.js';
import { ClaimOnce } from '../store/claim-once.js';
import type { EvaluationOutcome } from './evaluate-trade.js';

export type IdempotentOutcome = EvaluationOutcome | { kind: 'conflict' };

/**
 * Keys are scoped to channel and wallet, so nobody can read another wallet's
 * verdict by guessing its key. Only verdicts are kept: a 429 or an error
 * produced no verdict and no audit record, so a retry evaluates afresh.
 */
export class IdempotencyCache {
  private readonly once: ClaimOnce<EvaluationOutcome>;

  constructor(store: CacheStore, ttlMs: number, waitMs = 5_000) {
    const busy = 'an earlier request with this request_id is still being evaluated';
    this.once = new ClaimOnce(store, ttlMs, waitMs, (outcome) => outcome.kind === 'verdict', busy);
  }

  async run(scope: string, requestId: string, fingerprint: string, compute: () => Promise<EvaluationOutcome>): Promise<IdempotentOutcome> {
    const outcome = await this.once.run(idempotencyKey(scope, requestId), fingerprint, compute);
    return outcome.kind === 'conflict' ? outcome : outcome.value;
  }
}
