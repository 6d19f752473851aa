// A real Redis that comes back without the chain (rewound or empty) is a lost store: both instances fail closed until an operator acts.
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { privateKeyToAccount } from 'viem/accounts';
import { ManualClock } from '../../support/manual-clock.js';
import { startRedisServer, type RedisServer, type RedisServerOptions } from '../../support/redis-server.js';
import { getJson, postJson, sampleTrade, send, startTestService, type HttpResult, type TestService } from '../../support/service.js';
import { pollUntil } from '../../support/wait-until.js';

// Anvil's public development key #1: a wallet to sign in with, never funded.
const account = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const WALLET = account.address.toLowerCase();

// Instances that share tokens share the JWT secret, as docs/configuration.md says.
const SHARED = {
  AUDIT_STORE: 'redis', RATE_LIMITS: 'off', JWT_SECRET: 'lost-state-test-secret-of-at-least-32-chars', AUDIT_SIGNING_KEY: Buffer.alloc(32, 4).toString('base64'),
};

/**
 * Two instances on one persistent Redis, all of one test's own: no test inherits another's
 * chain, tokens, snapshot or Redis. The clock starts on a Tuesday during the NYSE session and
 * moves only when a test needs tokens issued later.
 */
class World {
  readonly clock = new ManualClock();
  readonly aofDir = mkdtempSync(join(tmpdir(), 'redis-aof-'));
  readonly snapshotDir = mkdtempSync(join(tmpdir(), 'redis-snapshot-'));
  redis!: RedisServer;
  a!: TestService;
  b!: TestService;
  revokedToken = '';
  goodToken = '';

  get persistent(): RedisServerOptions {
    return { dir: this.aofDir, persistent: true };
  }

  start(dataDir?: string, env: Record<string, string> = {}): Promise<TestService> {
    return startTestService({ REDIS_URL: this.redis.url, ...SHARED, ...env }, dataDir, { now: this.clock.now });
  }

  async restartRedis(options: RedisServerOptions = {}): Promise<void> {
    await this.redis.stop();
    this.redis = await startRedisServer(this.redis.port, options);
  }

  async close(): Promise<void> {
    await this.a?.stop();
    await this.b?.stop();
    await this.redis?.stop();
    for (const dir of [this.aofDir, this.snapshotDir]) rmSync(dir, { recursive: true, force: true });
  }
}

async function withWorld(test: (w: World) => Promise<void>): Promise<void> {
  const w = new World();
  try {
    w.redis = await startRedisServer(undefined, w.persistent);
    w.a = await w.start();
    w.b = await w.start();
    await test(w);
  } finally {
    await w.close();
  }
}

const until = <T>(what: string, probe: () => Promise<T>, ok: (value: T) => boolean) => pollUntil(what, probe, ok, 15_000, 50);

const status = async (s: TestService) => (await getJson(`${s.base}/status.json`)).json;
const whenOk = (s: TestService) => until('status ok', () => status(s), (doc) => doc.status === 'ok');
const whenLost = (s: TestService) => until('store_lost_state', () => status(s), (doc) => doc.components.store.code === 'store_lost_state');
const evaluate = (s: TestService, extra: Record<string, unknown> = {}) => postJson(`${s.base}/api/v1/analyze/free`, sampleTrade({ amount: 1, ...extra }));
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const config = (s: TestService, token: string) => getJson(`${s.base}/api/v1/config`, bearer(token));

async function signIn(s: TestService): Promise<HttpResult> {
  const nonce = await getJson(`${s.base}/api/v1/auth/nonce?address=${account.address}`);
  if (nonce.status !== 200) return nonce;
  const signature = await account.signMessage({ message: nonce.json.message });
  return postJson(`${s.base}/api/v1/auth/wallet`, { address: account.address, signature });
}

async function acknowledged(s: TestService, extra: Record<string, unknown> = {}): Promise<number> {
  const response = await evaluate(s, extra);
  assert.equal(response.status, 200, response.text);
  return response.json.audit_seq;
}

function assertClosedVerdict(response: HttpResult, error = /^store_lost_state: /): void {
  assert.equal(response.status, 503, response.text);
  assert.equal(response.json.decision, 'deny');
  assert.equal(response.json.audit_seq, null);
  assert.match(response.json.error, error);
  assert.equal(response.json.code, 'store_lost_state');
}

function assertLostBody(response: HttpResult): void {
  assert.equal(response.status, 503, response.text);
  assert.deepEqual(Object.keys(response.json).sort(), ['code', 'detail']);
  assert.equal(response.json.code, 'store_lost_state');
}

/**
 * Records 1-5 on one chain, a revoked and a good token, a copy of the data at seq 3, the
 * retried request 'retry-1' (seq 4) and a restart with the AOF. The first test is this
 * history; later tests replay it as their own setup.
 */
async function history(w: World): Promise<void> {
  const { a, b } = w;
  assert.deepEqual([await acknowledged(a), await acknowledged(b), await acknowledged(a)], [1, 2, 3]);
  w.revokedToken = (await signIn(a)).json.access_token;
  assert.deepEqual((await postJson(`${a.base}/api/v1/auth/revoke`, {}, bearer(w.revokedToken))).json, { revoked: true });
  assert.equal((await config(b, w.revokedToken)).json.detail, 'Token has been revoked');
  w.goodToken = (await signIn(b)).json.access_token;
  assert.equal((await config(a, w.goodToken)).status, 200);
  // An older copy of the data, for the rewound store.
  const client = new Redis(w.redis.url);
  await client.save();
  client.disconnect();
  copyFileSync(join(w.aofDir, 'dump.rdb'), join(w.snapshotDir, 'dump.rdb'));
  assert.equal(await acknowledged(b, { request_id: 'retry-1' }), 4);
  await w.restartRedis(w.persistent);
  await Promise.all([whenOk(a), whenOk(b)]);
  assert.equal((await evaluate(a, { request_id: 'retry-1' })).json.audit_seq, 4, 'the retry replays its verdict');
  assert.equal(await acknowledged(a), 5);
  assert.equal((await status(b)).components.audit.head.seq, 5);
}

/** Redis comes back empty (no AOF) and both instances have seen it. */
async function restartEmpty(w: World) {
  await w.restartRedis();
  return Promise.all([whenLost(w.a), whenLost(w.b)]);
}

describe('a Redis that keeps its data', () => {
  it('serves one chain to both instances, and a restart with its AOF changes nothing', () => withWorld(history));
});

describe('a Redis restored from an older copy', () => {
  it('is a lost store on both instances, until the complete data is back', () => withWorld(async (w) => {
    await history(w);
    const { a, b } = w;
    await w.restartRedis({ dir: w.snapshotDir });
    const [docA] = await Promise.all([whenLost(a), whenLost(b)]);
    assert.equal(docA.status, 'down');
    assert.match(docA.components.audit.reason, /chain head is seq 3, behind the epoch \S+ up to seq 5/);
    assertClosedVerdict(await evaluate(b));
    await w.restartRedis(w.persistent);
    await Promise.all([whenOk(a), whenOk(b)]);
    assert.equal(await acknowledged(b), 6);
    assert.ok(a.logs.some((line) => line.startsWith('audit: the store is verified again')), a.logs.join('\n'));
  }));
});

describe('a Redis restarted empty', () => {
  it('fails evaluations, retries, sign-ins and revocation checks closed on both instances', () => withWorld(async (w) => {
    await history(w);
    const { a, b } = w;
    assert.equal(await acknowledged(b), 6);
    const [docA, docB] = await restartEmpty(w);
    for (const doc of [docA, docB]) {
      assert.equal(doc.status, 'down');
      assert.match(doc.components.audit.reason, /epoch marker is gone/);
    }
    // b wrote seq 6; a remembers at least what it saw itself (it learns others' records on its next check).
    assert.equal(docB.components.audit.remembered.seq, 6);
    assert.ok(docA.components.audit.remembered.seq >= 5);
    for (const s of [a, b]) {
      assertClosedVerdict(await evaluate(s));
      assertClosedVerdict(await evaluate(s, { request_id: 'retry-1' }));
      assertLostBody(await signIn(s));
      assertLostBody(await config(s, w.revokedToken));
      assertLostBody(await postJson(`${s.base}/api/v1/analyze/trade`, sampleTrade({ wallet: WALLET, amount: 1 }), bearer(w.goodToken)));
    }
    const client = new Redis(w.redis.url);
    assert.deepEqual(await client.keys('tg:audit:*'), [], 'nothing was written to the forgotten chain');
    client.disconnect();
    assert.ok(a.logs.some((line) => line.startsWith('audit: store_lost_state: ')), a.logs.join('\n'));
  }));

  it('stays lost when an instance restarts on its own data folder', () => withWorld(async (w) => {
    assert.deepEqual([await acknowledged(w.a), await acknowledged(w.b)], [1, 2]);
    await restartEmpty(w);
    await w.b.stop(false);
    w.b = await w.start(w.b.dataDir);
    assert.equal((await status(w.b)).components.store.code, 'store_lost_state');
    assertClosedVerdict(await evaluate(w.b));
  }));

  it('starts a new chain only when an operator abandons the lost epoch, and refuses tokens issued before', () => withWorld(async (w) => {
    await history(w);
    await restartEmpty(w);
    const { b } = w;
    const lostEpoch = (await status(w.a)).components.audit.remembered.epoch;
    w.clock.advance(60_000);
    await w.a.stop(false);
    const a = (w.a = await w.start(w.a.dataDir, { AUDIT_ABANDON_EPOCH: lostEpoch }));
    const doc = await whenOk(a);
    assert.notEqual(doc.components.audit.epoch, lostEpoch);
    assert.equal(await acknowledged(a), 1);
    assert.ok(a.logs.some((line) => line.startsWith(`audit: abandoning lost epoch ${lostEpoch}`)), a.logs.join('\n'));
    const old = await config(a, w.goodToken);
    assert.deepEqual([old.status, old.json], [401, { detail: 'Token has been revoked', code: 'token_revoked' }]);
    const fresh = await signIn(a);
    assert.equal(fresh.status, 200, fresh.text);
    assert.equal((await config(a, fresh.json.access_token)).status, 200);
    // The other instance still remembers the old chain and is not silently moved onto the new one.
    await until('the other instance sees the new chain', () => status(b), (docB) => /another chain replaced it/.test(docB.components.audit.reason));
    assertClosedVerdict(await evaluate(b));
    assert.equal((await send('GET', `${b.base}/healthz`)).status, 200, 'liveness is not the store state');
  }));
});

describe('a Redis emptied under a running instance (FLUSHALL, no reconnect)', () => {
  it('refuses the very next evaluation, whichever check sees it first', () => withWorld(async (w) => {
    const { a } = w;
    assert.equal(await acknowledged(a), 1);
    assert.equal((await status(a)).status, 'ok');
    const client = new Redis(w.redis.url);
    await client.flushall();
    const refused = await evaluate(a);
    assertClosedVerdict(refused, /^(store_lost_state|audit append failed): /);
    assert.deepEqual(await client.keys('tg:audit:*'), []);
    client.disconnect();
    await whenLost(a);
  }));
});
