// The service on a real Redis Cluster: verdicts recorded on the chain's slot, shared state, and a 503 while no replica confirms.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Cluster } from 'ioredis';
import { startRedisCluster, type RedisCluster } from '../../../support/redis-cluster.js';
import { getJson, postJson, sampleTrade, startTestService, type TestService } from '../../../support/service.js';
import { waitUntil } from '../../../support/wait-until.js';

const OPEN_MARKET = Date.UTC(2026, 10, 17, 15, 0, 0);
const WALLET = '0x00000000000000000000000000000000000000b1';

let cluster: RedisCluster;
let running: TestService;
let raw: Cluster;
before(async () => {
  cluster = await startRedisCluster();
  running = await startTestService(
    { REDIS_CLUSTER_NODES: cluster.seeds, AUDIT_REPLICA_TIMEOUT_MS: '300', RATE_LIMITS: 'off' }, undefined, { now: () => OPEN_MARKET },
  );
  raw = new Cluster(cluster.seeds.split(',').map((seed) => ({ host: '127.0.0.1', port: Number(seed.split(':')[1]) })));
});
after(async () => {
  raw?.disconnect();
  await running?.stop();
  await cluster?.stop();
});

const evaluate = () => postJson(`${running.base}/api/v1/analyze/free`, sampleTrade({ wallet: WALLET, amount: 1 }));

describe('the service on a Redis Cluster', () => {
  it('answers verdicts whose records are in the chain under {tg:audit}: and verify', async () => {
    const answers = [await evaluate(), await evaluate()];
    assert.deepEqual(answers.map((a) => a.status), [200, 200]);
    assert.deepEqual(answers.map((a) => a.json.audit_seq), [1, 2]);
    const stored = await raw.hget('{tg:audit}:records', '2');
    assert.equal(stored?.slice(0, 64), answers[1].json.audit_hash);
    const verified = (await getJson(`${running.base}/api/v1/audit/verify`)).json;
    assert.deepEqual([verified.total, verified.healthy], [2, true]);
  });

  it('answers 503 audit_unavailable, never a verdict, while the chain primary\'s replica cannot confirm, and recovers by itself', async () => {
    const { replicas } = await cluster.shardOf('{tg:audit}:head');
    replicas[0].pause();
    try {
      const refused = await evaluate();
      assert.equal(refused.status, 503);
      assert.equal(refused.json.code, 'audit_unavailable');
      assert.equal(refused.json.decision, 'deny');
      assert.equal(refused.json.audit_hash, null);
    } finally {
      replicas[0].resume();
    }
    await cluster.settled();
    // The refusal holds until a WAIT confirms again (the log's replication check), then evaluations resume.
    await waitUntil(async () => (await getJson(`${running.base}/healthz`)).json.status === 'ok', 'the audit log ready again', 15_000, 50);
    const again = await evaluate();
    assert.equal(again.status, 200, JSON.stringify(again.json));
    // The refused verdict's record stayed in the chain unanswered: the next one follows it.
    assert.equal(again.json.audit_seq, 4);
    const verified = (await getJson(`${running.base}/api/v1/audit/verify`)).json;
    assert.deepEqual([verified.total, verified.healthy], [4, true]);
  });
});
