// The request_id wait for another instance's answer: bounded by polls, so a frozen clock never makes it endless.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EvaluationOutcome } from '../../../src/evaluation/evaluate-trade.js';
import { IdempotencyCache } from '../../../src/evaluation/idempotency.js';
import { idempotencyKey } from '../../../src/store/keys.js';
import { MemoryStore } from '../../../src/store/memory-store.js';
import { ManualClock } from '../../support/manual-clock.js';

const SCOPE = 'free:0x00000000000000000000000000000000000000aa';
const REPLAYED = { kind: 'verdict', verdict: { decision: 'allow', request_id: 'r-1' } } as unknown as EvaluationOutcome;

/** A store on a clock that never moves, holding a key another instance claimed and is still evaluating. */
async function claimedElsewhere(requestId: string): Promise<MemoryStore> {
  const store = new MemoryStore(new ManualClock().now, { sweepIntervalMs: 60_000 });
  await store.set(idempotencyKey(SCOPE, requestId), JSON.stringify({ fingerprint: 'f', state: 'pending' }), 300_000);
  return store;
}

describe('IdempotencyCache waiting for another instance', () => {
  // The timeout only turns a hang into a failure; nothing here measures time.
  it('gives up after its polls even though the clock never moves', { timeout: 10_000 }, async () => {
    const store = await claimedElsewhere('r-1');
    try {
      const cache = new IdempotencyCache(store, 300_000, 100);
      let evaluated = false;
      await assert.rejects(
        cache.run(SCOPE, 'r-1', 'f', async () => ((evaluated = true), REPLAYED)),
        /an earlier request with this request_id is still being evaluated/,
      );
      assert.equal(evaluated, false, 'never evaluates a key another instance holds');
    } finally {
      await store.close();
    }
  });

  it("replays the other instance's verdict once it is stored", { timeout: 10_000 }, async () => {
    const store = await claimedElsewhere('r-2');
    try {
      const cache = new IdempotencyCache(store, 300_000, 5_000);
      const waiting = cache.run(SCOPE, 'r-2', 'f', async () => assert.fail('evaluated a key another instance holds'));
      await store.set(idempotencyKey(SCOPE, 'r-2'), JSON.stringify({ fingerprint: 'f', state: 'done', outcome: REPLAYED }), 300_000);
      assert.deepEqual(await waiting, REPLAYED);
    } finally {
      await store.close();
    }
  });
});
