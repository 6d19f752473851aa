// Runs the CacheStore contract against MemoryStore, plus its memory-bounding sweep.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { MemoryStore } from '../../src/store/memory-store.js';
import { cacheStoreContract } from '../support/cache-store-contract.js';

cacheStoreContract('MemoryStore', async () => new MemoryStore());

describe('MemoryStore sweep', () => {
  it('drops expired values and idle windows without anyone reading them', async () => {
    const store = new MemoryStore({ sweepIntervalMs: 20 });
    try {
      for (let i = 0; i < 100; i++) await store.set(`gone-${i}`, 'v', 30);
      await store.set('kept', 'v', 0);
      await store.hitWindow('idle-window', 30, 5, Date.now());
      await store.hitWindow('busy-window', 60_000, 5, Date.now());
      assert.equal(store.size, 103);
      await sleep(120);
      assert.equal(store.size, 2);
      assert.equal(await store.get('kept'), 'v');
      assert.equal(await store.countWindow('busy-window', 60_000, Date.now()), 1);
    } finally {
      await store.close();
    }
  });

  it('sweep() removes exactly the entries expired at the given instant', async () => {
    const store = new MemoryStore({ sweepIntervalMs: 60_000 });
    try {
      const now = Date.now();
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

  it('close() empties the store', async () => {
    const store = new MemoryStore({ sweepIntervalMs: 10 });
    await store.set('k', 'v', 0);
    await store.close();
    assert.equal(store.size, 0);
  });
});
