// The behaviour every CacheStore must share; each implementation's test file runs it.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { CacheStore } from '../../src/store/cache-store.js';
import type { StoreTime } from './store-time.js';

const CONCURRENCY = 20;
// Long enough that real time passing during a test never expires a window key
// (windows expire windowMs after their last admitted hit); time is driven by nowMs.
const WINDOW_MS = 10_000;
const T0 = 1_700_000_000_000;

/**
 * Registers the contract cases under `describe(name)`. `make` runs once in `before`
 * (so it may depend on state set up by an enclosing suite's hooks); `time` lets TTLs
 * pass without sleeping where the store's clock can be moved; `cleanup` defaults to
 * `store.close()`.
 */
export function cacheStoreContract(
  name: string,
  make: () => Promise<CacheStore>,
  time: StoreTime,
  cleanup: (store: CacheStore) => Promise<void> = (store) => store.close(),
): void {
  describe(name, () => {
    const ctx: StoreRef = { store: undefined, time };
    before(async () => {
      ctx.store = await make();
    });
    after(async () => {
      if (ctx.store) await cleanup(ctx.store);
    });
    valueCases(ctx);
    expiryCases(ctx);
    atomicCases(ctx);
    windowCases(ctx);
  });
}

interface StoreRef {
  store: CacheStore | undefined;
  time: StoreTime;
}

function use(ctx: StoreRef): CacheStore {
  assert.ok(ctx.store, 'store was not created');
  return ctx.store;
}

/** A key no other test (or concurrent run on a shared Redis) uses. */
function freshKey(label: string): string {
  return `contract:${randomUUID()}:${label}`;
}

function range(count: number): number[] {
  return Array.from({ length: count }, (_, index) => index);
}

function valueCases(ctx: StoreRef): void {
  it('ping resolves', async () => {
    assert.equal(await use(ctx).ping(), undefined);
  });

  it('get/set/delete round-trip', async () => {
    const store = use(ctx);
    const key = freshKey('value');
    assert.equal(await store.get(key), null);
    await store.set(key, 'one', 0);
    assert.equal(await store.get(key), 'one');
    await store.set(key, 'two', 60_000);
    assert.equal(await store.get(key), 'two');
    await store.delete(key);
    assert.equal(await store.get(key), null);
    await store.delete(key); // deleting an absent key is not an error
    assert.equal(await store.get(key), null);
  });

  it('getMany answers in key order, null where absent, and agrees with get', async () => {
    const store = use(ctx);
    const [a, b, missing] = [freshKey('many-a'), freshKey('many-b'), freshKey('many-missing')];
    await store.set(a, 'alpha', 0);
    await store.set(b, '', 60_000);
    assert.deepEqual(await store.getMany([b, missing, a, a]), ['', null, 'alpha', 'alpha']);
    assert.deepEqual(await store.getMany([]), []);
    await store.delete(a);
    assert.deepEqual(await store.getMany([a, b]), [null, '']);
    // A store in this process answers the same at once (gather-facts.ts takes it without a promise); Redis has no such read.
    if (store.getManyNow) assert.deepEqual(store.getManyNow([b, missing, a]), ['', null, null]);
  });

  it('stores the empty string and unicode exactly', async () => {
    const store = use(ctx);
    const empty = freshKey('empty');
    const text = freshKey('text');
    await store.set(empty, '', 0);
    await store.set(text, 'ordre: 5 × AAPL — ok ✓', 0);
    assert.equal(await store.get(empty), '');
    assert.equal(await store.get(text), 'ordre: 5 × AAPL — ok ✓');
  });
}

function expiryCases(ctx: StoreRef): void {
  it('expires values after their TTL; ttl <= 0 never expires', async () => {
    const store = use(ctx);
    const ttl = ctx.time.shortTtlMs;
    const short = freshKey('short');
    const zero = freshKey('zero');
    const negative = freshKey('negative');
    const cleared = freshKey('cleared');
    await store.set(short, 'v', ttl);
    await store.set(zero, 'v', 0);
    await store.set(negative, 'v', -1);
    await store.set(cleared, 'old', ttl);
    await store.set(cleared, 'new', 0); // re-set without TTL drops the earlier TTL
    assert.equal(await store.get(short), 'v');
    await ctx.time.pass(ttl * 2.5, async () => (await store.get(short)) === null);
    assert.equal(await store.get(short), null);
    assert.equal(await store.get(zero), 'v');
    assert.equal(await store.get(negative), 'v');
    assert.equal(await store.get(cleared), 'new');
  });

  it('applies TTLs given to setIfAbsent and compareAndSet', async () => {
    const store = use(ctx);
    const ttl = ctx.time.shortTtlMs;
    const nx = freshKey('nx-ttl');
    const cas = freshKey('cas-ttl');
    assert.equal(await store.setIfAbsent(nx, 'first', ttl), true);
    assert.equal(await store.compareAndSet(cas, null, 'first', ttl), true);
    await ctx.time.pass(ttl * 2.5, async () => (await store.getMany([nx, cas])).every((value) => value === null));
    assert.equal(await store.get(nx), null);
    assert.equal(await store.get(cas), null);
    assert.equal(await store.setIfAbsent(nx, 'second', 0), true);
    assert.equal(await store.get(nx), 'second');
  });
}

function atomicCases(ctx: StoreRef): void {
  it('setIfAbsent sets once, then refuses without overwriting', async () => {
    const store = use(ctx);
    const key = freshKey('nx');
    assert.equal(await store.setIfAbsent(key, 'first', 60_000), true);
    assert.equal(await store.setIfAbsent(key, 'second', 60_000), false);
    assert.equal(await store.get(key), 'first');
  });

  it('concurrent setIfAbsent calls yield exactly one winner', async () => {
    const store = use(ctx);
    const key = freshKey('nx-race');
    const results = await Promise.all(range(CONCURRENCY).map((i) => store.setIfAbsent(key, `v${i}`, 60_000)));
    assert.equal(results.filter(Boolean).length, 1);
    assert.equal(await store.get(key), `v${results.indexOf(true)}`);
  });

  it('compareAndSet follows expected: null means absent', async () => {
    const store = use(ctx);
    const key = freshKey('cas');
    assert.equal(await store.compareAndSet(key, 'nothing-here', 'x', 0), false);
    assert.equal(await store.get(key), null);
    assert.equal(await store.compareAndSet(key, null, 'a', 0), true);
    assert.equal(await store.get(key), 'a');
    assert.equal(await store.compareAndSet(key, null, 'b', 0), false);
    assert.equal(await store.compareAndSet(key, 'wrong', 'b', 0), false);
    assert.equal(await store.get(key), 'a');
    assert.equal(await store.compareAndSet(key, 'a', 'b', 0), true);
    assert.equal(await store.get(key), 'b');
    assert.equal(await store.compareAndSet(key, '', 'c', 0), false);
    assert.equal(await store.get(key), 'b');
  });

  it('concurrent compareAndSet with the same expected value has one winner', async () => {
    const store = use(ctx);
    const key = freshKey('cas-race');
    await store.set(key, 'v0', 0);
    const results = await Promise.all(range(CONCURRENCY).map((i) => store.compareAndSet(key, 'v0', `n${i}`, 0)));
    assert.equal(results.filter(Boolean).length, 1);
    assert.equal(await store.get(key), `n${results.indexOf(true)}`);
  });

  it('take returns the value once, then null', async () => {
    const store = use(ctx);
    const key = freshKey('take');
    assert.equal(await store.take(key), null);
    await store.set(key, 'nonce', 60_000);
    assert.equal(await store.take(key), 'nonce');
    assert.equal(await store.take(key), null);
    assert.equal(await store.get(key), null);
  });

  it('concurrent takes: exactly one gets the value', async () => {
    const store = use(ctx);
    const key = freshKey('take-race');
    await store.set(key, 'once', 60_000);
    const results = await Promise.all(range(CONCURRENCY).map(() => store.take(key)));
    assert.deepEqual(results.filter((value) => value !== null), ['once']);
  });
}

function windowCases(ctx: StoreRef): void {
  it('hitWindow admits exactly limit hits, then refuses without recording', async () => {
    const store = use(ctx);
    const key = freshKey('window');
    assert.deepEqual(await store.hitWindow(key, WINDOW_MS, 3, T0), { allowed: true, count: 1, retryAfterMs: 0 });
    assert.deepEqual(await store.hitWindow(key, WINDOW_MS, 3, T0 + 1), { allowed: true, count: 2, retryAfterMs: 0 });
    assert.deepEqual(await store.hitWindow(key, WINDOW_MS, 3, T0 + 2), { allowed: true, count: 3, retryAfterMs: 0 });
    // The oldest hit (T0) leaves the window at T0 + WINDOW_MS.
    assert.deepEqual(await store.hitWindow(key, WINDOW_MS, 3, T0 + 3), { allowed: false, count: 3, retryAfterMs: 9_997 });
    assert.deepEqual(await store.hitWindow(key, WINDOW_MS, 3, T0 + 4), { allowed: false, count: 3, retryAfterMs: 9_996 });
    assert.equal(await store.countWindow(key, WINDOW_MS, T0 + 4), 3);
  });

  it('hits age out after the window (driven by nowMs)', async () => {
    const store = use(ctx);
    const key = freshKey('age');
    for (const at of [T0, T0 + 1, T0 + 2]) await store.hitWindow(key, WINDOW_MS, 3, at);
    // Window is (now - windowMs, now]: at T0 + WINDOW_MS the hit at T0 is out.
    assert.deepEqual(await store.hitWindow(key, WINDOW_MS, 3, T0 + WINDOW_MS), { allowed: true, count: 3, retryAfterMs: 0 });
    assert.deepEqual(await store.hitWindow(key, WINDOW_MS, 3, T0 + WINDOW_MS), { allowed: false, count: 3, retryAfterMs: 1 });
    assert.equal(await store.countWindow(key, WINDOW_MS, T0 + 3 * WINDOW_MS), 0);
    assert.deepEqual(await store.hitWindow(key, WINDOW_MS, 3, T0 + 3 * WINDOW_MS), { allowed: true, count: 1, retryAfterMs: 0 });
  });

  it('windowHits lists the hits inside the window, oldest first, without recording one', async () => {
    const store = use(ctx);
    const key = freshKey('hits');
    for (const at of [T0, T0 + 5, T0 + 9]) await store.hitWindow(key, WINDOW_MS, 5, at);
    assert.deepEqual(await store.windowHits(key, WINDOW_MS, T0 + 9), [T0, T0 + 5, T0 + 9]);
    assert.deepEqual(await store.windowHits(key, WINDOW_MS, T0 + WINDOW_MS + 5), [T0 + 9]);
    assert.deepEqual(await store.windowHits(freshKey('none'), WINDOW_MS, T0), []);
    assert.equal(await store.countWindow(key, WINDOW_MS, T0 + 9), 3);
  });

  it('refusals report retryAfterMs within (0, windowMs]', async () => {
    const store = use(ctx);
    const key = freshKey('retry');
    await store.hitWindow(key, 1_000, 1, T0);
    for (const at of [T0, T0 + 1, T0 + 500, T0 + 999]) {
      const hit = await store.hitWindow(key, 1_000, 1, at);
      assert.equal(hit.allowed, false);
      assert.equal(hit.retryAfterMs, T0 + 1_000 - at);
      assert.ok(hit.retryAfterMs > 0 && hit.retryAfterMs <= 1_000);
    }
  });

  it('records hits with equal timestamps separately', async () => {
    const store = use(ctx);
    const key = freshKey('same-ms');
    const counts: number[] = [];
    for (let i = 0; i < 4; i++) counts.push((await store.hitWindow(key, WINDOW_MS, 10, T0)).count);
    assert.deepEqual(counts, [1, 2, 3, 4]);
    assert.equal(await store.countWindow(key, WINDOW_MS, T0), 4);
  });

  it('concurrent hits admit exactly limit', async () => {
    const store = use(ctx);
    const key = freshKey('window-race');
    const hits = await Promise.all(range(CONCURRENCY).map(() => store.hitWindow(key, WINDOW_MS, 5, T0)));
    assert.equal(hits.filter((hit) => hit.allowed).length, 5);
    assert.deepEqual(hits.filter((hit) => hit.allowed).map((hit) => hit.count).sort((x, y) => x - y), [1, 2, 3, 4, 5]);
    assert.equal(await store.countWindow(key, WINDOW_MS, T0), 5);
  });

  it('keeps separate keys independent', async () => {
    const store = use(ctx);
    const a = freshKey('a');
    const b = freshKey('b');
    await store.hitWindow(a, WINDOW_MS, 1, T0);
    assert.equal((await store.hitWindow(a, WINDOW_MS, 1, T0)).allowed, false);
    assert.deepEqual(await store.hitWindow(b, WINDOW_MS, 1, T0), { allowed: true, count: 1, retryAfterMs: 0 });
    assert.equal(await store.countWindow(a, WINDOW_MS, T0), 1);
    assert.equal(await store.countWindow(b, WINDOW_MS, T0), 1);
  });

  it('countWindow counts hits inside the window without recording one', async () => {
    const store = use(ctx);
    const key = freshKey('count');
    assert.equal(await store.countWindow(key, WINDOW_MS, T0), 0);
    for (const at of [T0, T0 + 100, T0 + 200]) await store.hitWindow(key, WINDOW_MS, 10, at);
    assert.equal(await store.countWindow(key, WINDOW_MS, T0 + 200), 3);
    assert.equal(await store.countWindow(key, WINDOW_MS, T0 + 200), 3);
    assert.equal(await store.countWindow(key, WINDOW_MS, T0 + WINDOW_MS), 2);
    assert.equal(await store.countWindow(key, WINDOW_MS, T0 + WINDOW_MS + 200), 0);
    // A shorter window over the same hits: only those after T0 + 200 - 150.
    assert.equal(await store.countWindow(key, 150, T0 + 200), 2);
  });

  it('delete clears a window', async () => {
    const store = use(ctx);
    const key = freshKey('window-delete');
    await store.hitWindow(key, WINDOW_MS, 1, T0);
    await store.delete(key);
    assert.equal(await store.countWindow(key, WINDOW_MS, T0), 0);
    assert.deepEqual(await store.hitWindow(key, WINDOW_MS, 1, T0), { allowed: true, count: 1, retryAfterMs: 0 });
  });
}
