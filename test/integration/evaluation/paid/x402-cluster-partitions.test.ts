// Paid calls with AUDIT_PARTITIONS=3 on a Redis Cluster while one chain's primary has lost its replica: a trade whose
// wallet maps to that chain is refused before settlement, one on another chain is paid and answered.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { partitionOf } from '../../../../src/audit/record/partition.js';
import { chainPrefix } from '../../../../src/audit/redis/partitioned-audit-log.js';
import { PaidWorld, PRICE, payWith } from '../../../support/paid-world.js';
import { startRedisCluster, type RedisCluster } from '../../../support/redis-cluster.js';
import { getJson, type TestService } from '../../../support/service.js';
import { pollUntil } from '../../../support/wait-until.js';
import { useTempDirs } from '../../../support/temp-dirs.js';
import { signPayment } from '../../../support/x402-payer.js';

const K = 3;
const DOWN = 1;
const tempDir = useTempDirs('x402-cluster-partitions-');
let world: PaidWorld;
let cluster: RedisCluster;
let service: TestService;

before(async () => {
  world = await PaidWorld.start(await tempDir());
  cluster = await startRedisCluster();
  service = await world.service({ REDIS_CLUSTER_NODES: cluster.seeds, AUDIT_PARTITIONS: String(K), AUDIT_REPLICA_TIMEOUT_MS: '300' });
});
after(async () => {
  await service?.stop();
  await cluster?.stop();
  await world?.close();
});

/** A trade for a fresh wallet that maps to `chain`. */
function tradeOnChain(chain: number): Record<string, unknown> {
  for (;;) {
    const trade = world.trade();
    if (partitionOf(String(trade.wallet), K) === chain) return trade;
  }
}

describe('paid calls while one of three audit chains has no replica to confirm it', () => {
  it('refuse that chain\'s wallets before settlement and charge nothing, while a wallet on another chain is paid and answered', async () => {
    const { replicas } = await cluster.shardOf(`${chainPrefix(DOWN, K)}head`);
    await replicas[0].kill();
    const status = await pollUntil('the chain reported without its replica', async () => (await getJson(`${service.base}/status.json`)).json,
      (doc) => String(doc.components.audit.reason).includes(`audit chain ${DOWN}: the primary holding the audit chain`), 15_000, 100);

    const payer = world.devnet.wallets[1];
    const before = await world.usdc(payer.address);
    const refused = await payWith(service.base, tradeOnChain(DOWN), await signPayment(payer.privateKey, await world.challenge(service.base)));
    assert.deepEqual([refused.status, refused.json.code], [503, 'audit_unavailable'], refused.text);
    assert.equal(refused.headers.get('payment-response'), null, 'no receipt: nothing settled');
    assert.equal(await world.usdc(payer.address), before, 'nothing charged');

    const spared = (DOWN + 1) % K;
    const paid = await payWith(service.base, tradeOnChain(spared), await signPayment(payer.privateKey, await world.challenge(service.base)));
    assert.equal(paid.status, 200, paid.text);
    assert.equal(paid.json.audit_chain, spared);
    assert.notEqual(paid.headers.get('payment-response'), null, 'a receipt');
    assert.equal(await world.usdc(payer.address), before - PRICE, 'charged once, for the verdict it got');
    assert.deepEqual([status.status, status.components.audit.status, status.components.audit.chains_down], ['degraded', 'degraded', [DOWN]]);
  });
});
