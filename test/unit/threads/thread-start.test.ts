// Thread pools start whole: the service listens, and stops, only once every thread has loaded its module.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Piscina } from 'piscina';
import { ScoreBatcher } from '../../../src/evaluation/score-batcher.js';
import { allThreadsStarted, ThreadStartError, WholePool } from '../../../src/threads/thread-start.js';

const SCORE_WORKER = new URL('../../../workers/score.js', import.meta.url).href;

describe('allThreadsStarted', () => {
  it('resolves when each thread of the pool has loaded its module', async () => {
    const pool = new Piscina({ filename: SCORE_WORKER, minThreads: 3, maxThreads: 3 });
    try {
      await allThreadsStarted(pool, 3);
      assert.equal(pool.threads.length, 3);
    } finally {
      await pool.destroy();
    }
  });

  it('refuses, saying so, when fewer threads than expected can take the start tasks', async () => {
    const pool = new Piscina({ filename: SCORE_WORKER, minThreads: 1, maxThreads: 1 });
    try {
      await assert.rejects(allThreadsStarted(pool, 2, 200), (error: unknown) => {
        assert.ok(error instanceof ThreadStartError);
        assert.equal(error.message, "the pool's 2 threads did not all start within 200 ms");
        return true;
      });
    } finally {
      await pool.destroy();
    }
  });
});

describe('closing a pool that is still starting', () => {
  it('the scoring batcher waits for its threads to load before it stops them', async () => {
    for (let round = 0; round < 5; round += 1) {
      const scorer = new ScoreBatcher(2);
      let started = false;
      void scorer.started().then(() => { started = true; });
      await scorer.close();
      assert.equal(started, true, `round ${round}`);
    }
  });

  it('a pool destroyed as soon as it is made waits for its threads to load first', async () => {
    for (let round = 0; round < 5; round += 1) {
      const pool = new WholePool(SCORE_WORKER, 2);
      let started = false;
      void pool.started.then(() => { started = true; });
      await pool.destroy();
      assert.equal(started, true, `round ${round}`);
    }
  });
});
