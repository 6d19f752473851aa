// The service on a real Redis: shared windows, per-IP limits, and failing closed when Redis dies.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { getJson, postJson, sampleTrade, startTestService, type TestService } from '../support/service.js';

let redis: RedisServer;
let running: TestService;
let unmetered: TestService;

before(async () => {
  redis = await startRedisServer();
  running = await startTestService({ REDIS_URL: redis.url, AUDIT_STORE: 'file', RATE_LIMIT_IP_FREE: '3' });
  unmetered = await startTestService({ REDIS_URL: redis.url, AUDIT_STORE: 'file', RATE_LIMITS: 'off' });
});
after(async () => {
  await running.stop();
  await unmetered.stop();
  await redis.stop();
});

describe('on Redis', () => {
  it('evaluates and reports a reachable store', async () => {
    const response = await postJson(`${running.base}/api/v1/analyze/free`, sampleTrade({ amount: 1 }));
    assert.equal(response.status, 200);
    assert.equal(response.json.audit_seq, 1);
    assert.equal((await getJson(`${running.base}/`)).json.store, 'redis');
  });

  it('limits analyze/free per IP and says when to retry', async () => {
    // One request was made by the test above; two more fit in the window of 3.
    for (let i = 0; i < 2; i += 1) {
      const ok = await postJson(`${running.base}/api/v1/analyze/free`, sampleTrade({ amount: 1, wallet: `0x${'5'.repeat(39)}${i}` }));
      assert.equal(ok.status, 200);
    }
    const refused = await postJson(`${running.base}/api/v1/analyze/free`, sampleTrade({ amount: 1 }));
    assert.equal(refused.status, 429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    assert.equal(refused.headers.get('x-ratelimit-limit'), '3');
    // The demo route has its own per-IP window.
    const demo = await postJson(`${running.base}/api/v1/demo/analyze`, sampleTrade({ amount: 1, wallet: `0x${'6'.repeat(40)}` }));
    assert.equal(demo.status, 200);
  });

  it('fails closed when Redis dies: no verdict, an error, and an unhealthy /healthz', async () => {
    await redis.stop();
    const started = Date.now();
    const response = await postJson(`${running.base}/api/v1/demo/analyze`, sampleTrade({ amount: 1, wallet: `0x${'7'.repeat(40)}` }));
    assert.ok(Date.now() - started < 3_000, 'answered within the store timeout');
    assert.equal(response.status, 503);
    assert.deepEqual(response.json, { detail: 'rate-limit store unavailable; refusing to serve unmetered requests', code: 'store_unavailable' });
    // Without rate limits the evaluation itself needs the store for facts, and fails closed.
    const evaluated = await postJson(`${unmetered.base}/api/v1/analyze/free`, sampleTrade({ amount: 1 }));
    assert.equal(evaluated.status, 503);
    assert.equal(evaluated.json.decision, 'deny');
    assert.equal(evaluated.json.audit_seq, null);
    assert.match(evaluated.json.error, /^fact gathering failed: /);
    assert.deepEqual([evaluated.json.error, evaluated.json.code], ['fact gathering failed: the cache store did not answer', 'store_unavailable']);
    const health = await getJson(`${running.base}/healthz`);
    assert.equal(health.status, 503);
    assert.equal(health.json.status, 'unavailable');
  });
});
