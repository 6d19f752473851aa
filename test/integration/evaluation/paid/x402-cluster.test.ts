// A paid call on a Redis Cluster whose audit chain primary has lost its replica: refused before settlement, nothing charged.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { keySlot } from '../../../../src/audit/redis/partitioned-slots.js';
import { PaidWorld, payWith } from '../../../support/paid-world.js';
import { startRedisCluster, type RedisCluster } from '../../../support/redis-cluster.js';
import { getJson, type TestService } from '../../../support/service.js';
import { pollUntil } from '../../../support/wait-until.js';
import { useTempDirs } from '../../../support/temp-dirs.js';
import { signPayment } from '../../../support/x402-payer.js';

const tempDir = useTempDirs('x402-cluster-');
let world: PaidWorld;
let cluster: RedisCluster;
let service: TestService;

before(async () => {
  world = await PaidWorld.start(await tempDir());
  cluster = await startRedisCluster();
  service = await world.service({ REDIS_CLUSTER_NODES: cluster.seeds, AUDIT_REPLICA_TIMEOUT_MS: '300' });
});
after(async () => {
  await service?.stop();
  await cluster?.stop();
  await world?.close();
});

describe('a paid call while the audit chain\'s primary has no replica to confirm it', () => {
  it('is refused with 503 audit_unavailable before settlement: no receipt, nothing charged, the log reported down', async () => {
    const payer = world.devnet.wallets[1];
    const paid = await payWith(service.base, world.trade(), await signPayment(payer.privateKey, await world.challenge(service.base)));
    assert.equal(paid.status, 200, paid.text);

    const { replicas } = await cluster.shardOf('{tg:audit}:head');
    await replicas[0].kill();
    const status = await pollUntil('the audit log reported down', async () => (await getJson(`${service.base}/status.json`)).json,
      (doc) => doc.components.audit.status === 'down', 15_000, 100);
    assert.equal(status.components.audit.reason, `the primary holding the audit chain (slot ${keySlot('{tg:audit}:head')}) has 0 of the 1 replicas AUDIT_REPLICA_ACKS asks for online; `
      + 'records resume by themselves once a replica is back (restart the lost node: it rejoins as a replica)');
    const health = await getJson(`${service.base}/healthz`);
    assert.deepEqual([health.status, health.json.status, health.json.reason], [200, 'degraded', status.components.audit.reason]);

    const before = await world.usdc(payer.address);
    const refused = await payWith(service.base, world.trade(), await signPayment(payer.privateKey, await world.challenge(service.base)));
    assert.equal(refused.status, 503, refused.text);
    assert.equal(refused.json.code, 'audit_unavailable');
    assert.equal(refused.headers.get('payment-response'), null, 'no receipt: nothing settled');
    assert.equal(await world.usdc(payer.address), before, 'nothing charged');
  });
});
