// Runs the CacheStore contract against RedisStore on a real 6-node Redis Cluster, plus what only a cluster shows.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Cluster } from 'ioredis';
import { RedisStore } from '../../../src/store/redis-store.js';
import { dangerKey, policyKey, provenWindowKey, safetyKey, walletWindowKey } from '../../../src/store/keys.js';
import { cacheStoreContract } from '../../support/cache-store-contract.js';
import { startRedisCluster, type RedisCluster } from '../../support/redis-cluster.js';
import { polledExpiry } from '../../support/store-time.js';

const WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const TOKEN = '0x5FbDB2315678afecb367f032d93F642f64180aa3';

let cluster: RedisCluster;
before(async () => {
  cluster = await startRedisCluster();
});
after(async () => {
  await cluster?.stop();
});

describe('RedisStore on a Redis Cluster', () => {
  // TTLs expire on Redis's clock, which the test cannot move: the contract polls for the expiry.
  cacheStoreContract('RedisStore contract (cluster)', () => RedisStore.connect(cluster.target, `test-${randomUUID()}:`), polledExpiry());

  it('keeps a wallet\'s windows and policy in one slot, and reads flags that live on other primaries in one call', async () => {
    const store = await RedisStore.connect(cluster.target);
    const raw = new Cluster([...(cluster.target.kind === 'cluster' ? cluster.target.nodes : [])]);
    try {
      const slots = await Promise.all([walletWindowKey(WALLET), provenWindowKey(WALLET), policyKey(WALLET)].map((key) => raw.cluster('KEYSLOT', `tg:${key}`)));
      assert.equal(new Set(slots).size, 1, `a wallet's keys in slots ${slots.join(', ')}`);
      const shards = await Promise.all([dangerKey(TOKEN), safetyKey(TOKEN), policyKey(WALLET)].map((key) => cluster.shardOf(`tg:${key}`)));
      assert.ok(new Set(shards.map((s) => s.primary.port)).size > 1, 'the evaluation\'s three flags live on more than one primary');
      await store.set(dangerKey(TOKEN), 'danger', 60_000);
      await store.set(policyKey(WALLET), '{"blocked_assets":["TSLA"]}', 0);
      assert.deepEqual(await store.getMany([dangerKey(TOKEN), safetyKey(TOKEN), policyKey(WALLET)]), ['danger', null, '{"blocked_assets":["TSLA"]}']);
      // The wallet's shared window counts its proven hits beside its own: both scripts run in the wallet's slot.
      await store.hitWindow(provenWindowKey(WALLET), 60_000, 5, Date.now());
      await store.hitWindow(walletWindowKey(WALLET), 60_000, 10, Date.now());
      assert.equal(await raw.zcard(`tg:${walletWindowKey(WALLET)}`), 1);
    } finally {
      raw.disconnect();
      await store.close();
    }
  });

  it('connect() to a cluster that does not answer names REDIS_CLUSTER_NODES', async () => {
    const target = { kind: 'cluster' as const, nodes: [{ host: '127.0.0.1', port: 1 }] };
    await assert.rejects(RedisStore.connect(target), /^Error: Cannot connect to Redis at REDIS_CLUSTER_NODES=127\.0\.0\.1:1: /);
  });
});
