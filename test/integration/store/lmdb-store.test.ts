// Runs the CacheStore contract against LmdbStore on a real LMDB file, plus what it keeps across a reopen and how it fails.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LmdbStore } from '../../../src/store/lmdb-store.js';
import { StoreUnavailableError } from '../../../src/store/store-unavailable.js';
import { cacheStoreContract } from '../../support/cache-store-contract.js';
import { ManualClock } from '../../support/manual-clock.js';
import { movedClock } from '../../support/store-time.js';
import { useTempDirs } from '../../support/temp-dirs.js';

const tempDir = useTempDirs('lmdb-store-');
const contractClock = new ManualClock();
cacheStoreContract('LmdbStore contract', async () => LmdbStore.open(await tempDir(), contractClock.now), movedClock(contractClock));

/** A key over LMDB's 1,978-byte limit: a write the store itself refuses, no stand-in needed. */
const REFUSED_KEY = `idem:${'k'.repeat(2_000)}`;

describe('LmdbStore across a restart', () => {
  it('keeps values and TTLs; an entry whose TTL passed while it was closed is gone', async () => {
    const dir = await tempDir();
    const clock = new ManualClock();
    const first = LmdbStore.open(dir, clock.now);
    await first.set('policy:0xabc', '{"blocked_assets":["TSLA"]}', 0);
    await first.set('revoked:jti-1', '1', 3_600_000);
    await first.set('idem:free:short', 'kept verdict', 1_000);
    assert.equal(await first.setIfAbsent('x402:0xpayer:0xnonce', 'claim', 3_600_000), true);
    await first.close();

    clock.advance(5_000);
    const second = LmdbStore.open(dir, clock.now);
    try {
      assert.deepEqual(
        await second.getMany(['policy:0xabc', 'revoked:jti-1', 'idem:free:short', 'x402:0xpayer:0xnonce']),
        ['{"blocked_assets":["TSLA"]}', '1', null, 'claim'],
      );
      assert.equal(await second.setIfAbsent('x402:0xpayer:0xnonce', 'second claim', 3_600_000), false);
      clock.advance(3_600_000);
      assert.deepEqual(await second.getMany(['policy:0xabc', 'revoked:jti-1', 'x402:0xpayer:0xnonce']), ['{"blocked_assets":["TSLA"]}', null, null]);
    } finally {
      await second.close();
    }
  });

  it('forgets rate windows, which stay in memory', async () => {
    const dir = await tempDir();
    const clock = new ManualClock();
    const first = LmdbStore.open(dir, clock.now);
    await first.hitWindow('rl:wallet:0xabc', 60_000, 1, clock.now());
    assert.equal((await first.hitWindow('rl:wallet:0xabc', 60_000, 1, clock.now())).allowed, false);
    await first.close();
    const second = LmdbStore.open(dir, clock.now);
    try {
      assert.equal(await second.countWindow('rl:wallet:0xabc', 60_000, clock.now()), 0);
    } finally {
      await second.close();
    }
  });

  it('sweep removes expired entries from the file, not only from reads', async () => {
    const dir = await tempDir();
    const clock = new ManualClock();
    const first = LmdbStore.open(dir, clock.now, { sweepIntervalMs: 60_000 });
    await first.set('short', 'v', 1_000);
    await first.set('long', 'v', 60_000);
    await first.set('moved', 'old', 1_000);
    await first.set('moved', 'new', 0); // its first expiry no longer applies
    first.sweep(clock.now() + 30_000);
    assert.deepEqual(await first.getMany(['short', 'long', 'moved']), [null, 'v', 'new']);
    await first.close();
    // Read back at the original instant: only a removal on disk explains `short` missing.
    const second = LmdbStore.open(dir, clock.now);
    try {
      assert.deepEqual(await second.getMany(['short', 'long', 'moved']), [null, 'v', 'new']);
    } finally {
      await second.close();
    }
  });
});

describe('LmdbStore reads of absent keys', () => {
  it('sees a key written after it was read as absent, once committed, after a removal, and after a reopen', async () => {
    const dir = await tempDir();
    const clock = new ManualClock();
    const store = LmdbStore.open(dir, clock.now);
    assert.deepEqual(await store.getMany(['policy:0xabc', 'danger:0xdef']), [null, null]);
    const write = store.set('policy:0xabc', '{"blocked_assets":["TSLA"]}', 0);
    assert.equal(await store.get('policy:0xabc'), '{"blocked_assets":["TSLA"]}', 'visible while the write is in flight');
    await write;
    assert.equal(await store.get('policy:0xabc'), '{"blocked_assets":["TSLA"]}', 'visible once committed');
    assert.equal(await store.setIfAbsent('danger:0xdef', 'flag', 60_000), true);
    assert.equal(await store.get('danger:0xdef'), 'flag');
    await store.delete('policy:0xabc');
    assert.equal(await store.get('policy:0xabc'), null);
    await store.set('policy:0xabc', '{"blocked_assets":[]}', 0);
    await store.close();
    const reopened = LmdbStore.open(dir, clock.now);
    try {
      assert.deepEqual(await reopened.getMany(['policy:0xabc', 'danger:0xdef']), ['{"blocked_assets":[]}', 'flag']);
    } finally {
      await reopened.close();
    }
  });
});

describe('LmdbStore fails closed', () => {
  it('rejects a write it cannot make with store_unavailable, records nothing, and reports it in ping until a write lands', async () => {
    const store = LmdbStore.open(await tempDir(), new ManualClock().now);
    try {
      const refused = await store.setIfAbsent(REFUSED_KEY, 'claim', 60_000).then(() => null, (error: unknown) => error);
      assert.ok(refused instanceof StoreUnavailableError, String(refused));
      assert.equal(refused.failure.code, 'store_unavailable');
      assert.match(refused.message, /^cache store setIfAbsent failed: /);
      assert.equal(await store.get('ping-probe'), null);
      await assert.rejects(store.ping(), (error: unknown) => error instanceof StoreUnavailableError);
      await store.set('ping-probe', 'landed', 0);
      assert.equal(await store.ping(), undefined);
      assert.equal(await store.get('ping-probe'), 'landed');
    } finally {
      await store.close();
    }
  });

  it('rejects reads of a closed store with store_unavailable rather than answering absent', async () => {
    const store = LmdbStore.open(await tempDir(), new ManualClock().now);
    await store.set('policy:0xabc', '{"blocked_assets":["TSLA"]}', 0);
    await store.close();
    await assert.rejects(store.getMany(['policy:0xabc']), (error: unknown) => error instanceof StoreUnavailableError);
  });
});
