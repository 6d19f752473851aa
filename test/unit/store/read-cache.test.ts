// The TTL read cache: one read for a burst of callers, kept for its time on the service's clock, and looked at without a read.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ReadCache } from '../../../src/store/read-cache.js';

describe('ReadCache', () => {
  it('reads once for callers that overlap, keeps the value for its time, then reads again', async () => {
    let now = 1_000;
    let reads = 0;
    const cache = new ReadCache<number>(100, () => now);
    const read = async () => ++reads;
    assert.deepEqual(await Promise.all([cache.get('k', read), cache.get('k', read)]), [1, 1]);
    now += 99;
    assert.equal(await cache.get('k', read), 1);
    now += 1;
    assert.equal(await cache.get('k', read), 2);
  });

  it('peeks at a kept value without reading, and at nothing once it expired, was forgotten or was never read', async () => {
    let now = 0;
    const cache = new ReadCache<string>(50, () => now);
    assert.equal(cache.peek('k'), undefined);
    await cache.get('k', async () => 'kept');
    assert.equal(cache.peek('k'), 'kept');
    now = 50;
    assert.equal(cache.peek('k'), undefined);
    await cache.get('k', async () => 'again');
    cache.forget('k');
    assert.equal(cache.peek('k'), undefined);
  });

  it('keeps no failure: the next caller reads again', async () => {
    const cache = new ReadCache<string>(1_000, () => 0);
    await assert.rejects(cache.get('k', async () => { throw new Error('node down'); }), /node down/);
    assert.equal(cache.peek('k'), undefined);
    assert.equal(await cache.get('k', async () => 'back'), 'back');
  });
});
