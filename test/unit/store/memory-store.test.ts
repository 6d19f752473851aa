// Runs the CacheStore contract against MemoryStore, plus its memory-bounding sweep.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryStore } from '../../../src/store/memory-store.js';
import { cacheStoreContract } from '../../support/cache-store-contract.js';
import { ManualClock } from '../../support/manual-clock.js';
import { movedClock } from '../../support/store-time.js';
import { waitUntil } from '../../support/wait-until.js';

const contractClock = new ManualClock();
cacheStoreContract('MemoryStore', async () => new MemoryStore(contractClock.now), movedClock(contractClock));

describe('MemoryStore sweep', () => {
  it('drops expired values and idle windows without anyone reading them', async () => {
    const clock = new ManualClock();
    const store = new MemoryStore(clock.now, { sweepIntervalMs: 20 });
    try {
      for (let i = 0; i < 100; i++) await store.set(`gone-${i}`, 'v', 30);
      await store.set('kept', 'v', 0);
      await store.hitWindow('idle-window', 30, 5, clock.now());
      await store.hitWindow('busy-window', 60_000, 5, clock.now());
      assert.equal(store.size, 103);
      clock.advance(120);
      // The clock moved; the sweep itself runs on its real 20 ms timer, so wait for it to have run.
      await waitUntil(() => store.size === 2, 'the periodic sweep dropped the expired entries', 2_000);
      assert.equal(store.size, 2);
      assert.equal(await store.get('kept'), 'v');
      assert.equal(await store.countWindow('busy-window', 60_000, clock.now()), 1);
    } finally {
      await store.close();
    }
  });

  it('sweep() removes exactly the entries expired at the given instant', async () => {
    const clock = new ManualClock();
    const store = new MemoryStore(clock.now, { sweepIntervalMs: 60_000 });
    try {
      const now = clock.now();
      await store.set('short', 'v', 1_000);
      await store.set('long', 'v', 60_000);
      await store.hitWindow('window', 1_000, 1, now);
      store.sweep(now + 30_000);
      assert.equal(store.size, 1);
      assert.equal(await store.get('long'), 'v');
    } finally {
      await store.close();
    }
  });

  it('sweep() with no instant uses the store clock', async () => {
    const clock = new ManualClock();
    const store = new MemoryStore(clock.now, { sweepIntervalMs: 60_000 });
    try {
      await store.set('short', 'v', 1_000);
      store.sweep();
      assert.equal(store.size, 1);
      clock.advance(1_000);
      store.sweep();
      assert.equal(store.size, 0);
    } finally {
      await store.close();
    }
  });

  it('close() empties the store', async () => {
    const store = new MemoryStore(new ManualClock().now, { sweepIntervalMs: 10 });
    await store.set('k', 'v', 0);
    await store.close();
    assert.equal(store.size, 0);
  });
});
