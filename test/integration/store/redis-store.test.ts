// Runs the CacheStore contract against RedisStore on a real redis-server, plus fail-closed and reconnect checks.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { RedisStore } from '../../../src/store/redis-store.js';
import { cacheStoreContract } from '../../support/cache-store-contract.js';
import { freePort, startRedisServer, type RedisServer } from '../../support/redis-server.js';
import { polledExpiry } from '../../support/store-time.js';
import { waitUntil } from '../../support/wait-until.js';

const FAIL_FAST_MS = 2_000;

/** Asserts the promise rejects, and does so within `withinMs` rather than hanging. */
async function assertRejectsWithin(promise: Promise<unknown>, withinMs: number): Promise<Error> {
  const started = Date.now();
  // Cancelled afterwards: a pending guard timer would keep the test process alive.
  const guard = new AbortController();
  const hung = sleep(withinMs + 500, 'hung' as const, { signal: guard.signal }).catch(() => 'hung' as const);
  const outcome = await Promise.race([
    promise.then(
      () => 'resolved' as const,
      (error: unknown) => error,
    ),
    hung,
  ]);
  guard.abort();
  const elapsed = Date.now() - started;
  assert.notEqual(outcome, 'resolved', 'expected a rejection');
  assert.notEqual(outcome, 'hung', `still pending after ${elapsed} ms`);
  assert.ok(outcome instanceof Error, `rejected with a non-Error: ${String(outcome)}`);
  assert.ok(elapsed <= withinMs, `rejected only after ${elapsed} ms`);
  return outcome;
}

/** Polls until the store answers again, as a service health check would. */
async function waitForPing(store: RedisStore, timeoutMs: number): Promise<void> {
  await waitUntil(() => store.ping().then(() => true, () => false), 'the store does not answer a ping', timeoutMs, 50);
}

describe('RedisStore', () => {
  let server: RedisServer;
  before(async () => {
    server = await startRedisServer();
  });
  after(async () => {
    await server.stop();
  });

    // TTLs expire on Redis's clock, which the test cannot move: the contract polls for the expiry.
  cacheStoreContract('RedisStore contract', () => RedisStore.connect(server.url, `test-${randomUUID()}:`), polledExpiry());

  it('uses the key prefix, so stores with different prefixes do not see each other', async () => {
    const a = await RedisStore.connect(server.url, 'prefix-a:');
    const b = await RedisStore.connect(server.url, 'prefix-b:');
    try {
      await a.set('shared-name', 'from-a', 0);
      assert.equal(await b.get('shared-name'), null);
      assert.equal(await a.get('shared-name'), 'from-a');
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('RedisStore fails closed', () => {
  it('rejects ping, get and hitWindow quickly once the server is gone', async () => {
    const doomed = await startRedisServer();
    const store = await RedisStore.connect(doomed.url);
    try {
      await store.set('k', 'v', 0);
      await doomed.stop();
      await assertRejectsWithin(store.ping(), FAIL_FAST_MS);
      await assertRejectsWithin(store.get('k'), FAIL_FAST_MS);
      await assertRejectsWithin(store.hitWindow('w', 1_000, 5, Date.now()), FAIL_FAST_MS);
    } finally {
      await store.close();
      await doomed.stop();
    }
  });

  it('rejects calls quickly when the server is connected but stalled', async () => {
    const stalled = await startRedisServer();
    const store = await RedisStore.connect(stalled.url);
    try {
      stalled.pause();
      // Concurrent: each waits out the command timeout, which need not add up.
      await Promise.all([
        assertRejectsWithin(store.ping(), FAIL_FAST_MS),
        assertRejectsWithin(store.hitWindow('w', 1_000, 5, Date.now()), FAIL_FAST_MS),
      ]);
      stalled.resume();
      await waitForPing(store, 5_000);
      assert.equal(await store.countWindow('w', 1_000, Date.now()), 0);
    } finally {
      await store.close();
      await stalled.stop();
    }
  });

  it('rejects calls on a store whose server never answered', async () => {
    const store = new RedisStore(`redis://127.0.0.1:${await freePort()}`);
    try {
      await assertRejectsWithin(store.ping(), FAIL_FAST_MS);
      await assertRejectsWithin(store.get('k'), FAIL_FAST_MS);
      await assertRejectsWithin(store.hitWindow('w', 1_000, 5, Date.now()), FAIL_FAST_MS);
    } finally {
      await store.close();
    }
  });

  it('connect() to a dead URL names REDIS_URL and hides the password', async () => {
    const url = `redis://:secret@127.0.0.1:${await freePort()}`;
    const error = await assertRejectsWithin(RedisStore.connect(url), FAIL_FAST_MS);
    assert.match(error.message, /REDIS_URL/);
    assert.ok(!error.message.includes('secret'), error.message);
    assert.match(error.message, /ECONNREFUSED/);
  });
});

describe('RedisStore reconnects', () => {
  it('serves commands again when the server comes back on the same port, same client', async () => {
    const first = await startRedisServer();
    const store = await RedisStore.connect(first.url);
    let second: RedisServer | undefined;
    try {
      await store.set('before', 'v', 0);
      await first.stop();
      await assertRejectsWithin(store.get('before'), FAIL_FAST_MS);
      second = await startRedisServer(first.port);
      await waitForPing(store, 5_000);
      // A fresh server has an empty script cache: the Lua commands must still work.
      assert.equal(await store.get('before'), null);
      await store.set('after', 'v2', 0);
      assert.equal(await store.get('after'), 'v2');
      assert.equal(await store.compareAndSet('after', 'v2', 'v3', 0), true);
      assert.deepEqual(await store.hitWindow('w', 1_000, 1, 5_000), { allowed: true, count: 1, retryAfterMs: 0 });
    } finally {
      await store.close();
      await second?.stop();
    }
  });
});
