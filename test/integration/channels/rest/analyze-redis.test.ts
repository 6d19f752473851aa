// The service on a real Redis: shared windows, per-IP limits, and failing closed when Redis dies.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startRedisServer, type RedisServer } from '../../../support/redis-server.js';
import { getJson, postJson, sampleTrade, startTestService, type TestService } from '../../../support/service.js';

interface OnRedis {
  redis: RedisServer;
  /** analyze/free limited to 3 a window per IP. */
  running: TestService;
  /** The same Redis with rate limits off. */
  unmetered: TestService;
}

/**
 * Each test gets its own redis-server and services: a per-IP window, an audit seq or a dead
 * Redis left by one test is never what another test sees.
 */
async function withRedis(test: (on: OnRedis) => Promise<void>): Promise<void> {
  const redis = await startRedisServer();
  const started: TestService[] = [];
  const start = async (env: Record<string, string>) => {
    const service = await startTestService({ REDIS_URL: redis.url, AUDIT_STORE: 'file', ...env });
    started.push(service);
    return service;
  };
  try {
    const running = await start({ RATE_LIMIT_IP_FREE: '3' });
    const unmetered = await start({ RATE_LIMITS: 'off' });
    await test({ redis, running, unmetered });
  } finally {
    for (const service of started) await service.stop();
    await redis.stop();
  }
}

describe('on Redis', () => {
  it('evaluates and reports a reachable store', () => withRedis(async ({ running }) => {
    const response = await postJson(`${running.base}/api/v1/analyze/free`, sampleTrade({ amount: 1 }));
    assert.equal(response.status, 200);
    assert.equal(response.json.audit_seq, 1);
    assert.equal((await getJson(`${running.base}/`)).json.store, 'redis');
  }));

  it('limits analyze/free per IP and says when to retry', () => withRedis(async ({ running }) => {
    // This test's own first request; two more fit in the window of 3.
    assert.equal((await postJson(`${running.base}/api/v1/analyze/free`, sampleTrade({ amount: 1 }))).status, 200);
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
  }));

  it('fails closed when Redis dies: no verdict, an error, and an unhealthy /healthz', () => withRedis(async ({ redis, running, unmetered }) => {
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
  }));
});
