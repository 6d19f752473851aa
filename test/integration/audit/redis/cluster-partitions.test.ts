// AUDIT_PARTITIONS=3 on a real 6-node Redis Cluster: each chain on a primary of its own, every verdict's record on that
// primary's replica before it is answered (WAIT), the global verify over every chain, one signed checkpoint over all heads.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Cluster, Redis } from 'ioredis';
import { CheckpointSigner } from '../../../../src/audit/proof/checkpoint.js';
import { checkPartitionedCheckpoint, type PartitionedCheckpoint } from '../../../../src/audit/proof/partition-root.js';
import { partitionOf } from '../../../../src/audit/record/partition.js';
import { chainPrefix } from '../../../../src/audit/redis/partitioned-audit-log.js';
import { keySlot } from '../../../../src/audit/redis/partitioned-slots.js';
import { ManualClock } from '../../../support/manual-clock.js';
import { startRedisCluster, type RedisCluster } from '../../../support/redis-cluster.js';
import { getJson, postJson, sampleTrade, startTestService, type TestService } from '../../../support/service.js';
import { pollUntil } from '../../../support/wait-until.js';

const K = 3;
const KEY = Buffer.alloc(32, 12).toString('base64');
const WALLETS = Array.from({ length: 12 }, (_, i) => `0x${(0xe000 + i).toString(16).padStart(40, '0')}`);
const clock = new ManualClock();
let cluster: RedisCluster;
let running: TestService;
let raw: Cluster;
/** Each verdict's chain, seq and hash, in answer order. */
const answered: Array<{ chain: number; seq: number; hash: string }> = [];

before(async () => {
  cluster = await startRedisCluster();
  running = await startTestService({
    REDIS_CLUSTER_NODES: cluster.seeds, AUDIT_PARTITIONS: String(K), RATE_LIMITS: 'off',
    AUDIT_CHECKPOINT_RECORDS: '0', AUDIT_CHECKPOINT_SECONDS: '10', AUDIT_SIGNING_KEY: KEY,
  }, undefined, { now: clock.now });
  raw = new Cluster(cluster.nodes.map((node) => ({ host: '127.0.0.1', port: node.port })));
});
after(async () => {
  raw?.disconnect();
  await running?.stop();
  await cluster?.stop();
});

/** HGET on a replica itself (READONLY), not through the cluster client, which reads primaries. */
async function onReplica(port: number, key: string, field: string): Promise<string | null> {
  const replica = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await replica.connect();
    await replica.call('READONLY');
    return await replica.hget(key, field);
  } finally {
    replica.disconnect();
  }
}

describe('partitioned audit chains on a Redis Cluster (AUDIT_PARTITIONS=3)', () => {
  it('put each chain\'s keys on a slot served by a primary of its own', async () => {
    const shards = [];
    for (let p = 0; p < K; p++) {
      const key = `${chainPrefix(p, K)}head`;
      assert.equal(Number(await raw.cluster('KEYSLOT', key)), keySlot(key), `CLUSTER KEYSLOT ${key}`);
      shards.push(await cluster.shardOf(key));
    }
    assert.equal(new Set(shards.map((shard) => shard.primary.port)).size, K, 'three chains, three primaries');
    assert.ok(shards.every((shard) => shard.replicas.length === 1));
  });

  it('answer a verdict only once its record is on the chain primary\'s replica (WAIT)', async () => {
    for (const wallet of WALLETS) {
      const answer = await postJson(`${running.base}/api/v1/analyze/free`, sampleTrade({ wallet, amount: 1 }));
      assert.equal(answer.status, 200, answer.text);
      const { audit_chain: chain, audit_seq: seq, audit_hash: hash } = answer.json as { audit_chain: number; audit_seq: number; audit_hash: string };
      assert.equal(chain, partitionOf(wallet, K));
      // Read at once from the replica: WAIT returned only after the replica held the record.
      const { replicas } = await cluster.shardOf(`${chainPrefix(chain, K)}records`);
      assert.equal((await onReplica(replicas[0].port, `${chainPrefix(chain, K)}records`, String(seq)))?.slice(0, 64), hash, `chain ${chain} seq ${seq}`);
      answered.push({ chain, seq, hash });
    }
    const counts = [0, 1, 2].map((p) => answered.filter((a) => a.chain === p).length);
    assert.ok(counts.every((count) => count > 0), `every chain took records: ${counts.join(', ')}`);
    for (let p = 0; p < K; p++) {
      assert.deepEqual(answered.filter((a) => a.chain === p).map((a) => a.seq), Array.from({ length: counts[p] }, (_, i) => i + 1), `chain ${p} seqs`);
    }
  });

  it('verify every chain in one global verification', async () => {
    const verify = await getJson(`${running.base}/api/v1/audit/verify?limit=1000`);
    assert.equal(verify.status, 200, verify.text);
    assert.deepEqual(
      [verify.json.healthy, verify.json.total, verify.json.chains.map((c: { chain: number; total: number; healthy: boolean }) => [c.chain, c.total, c.healthy])],
      [true, WALLETS.length, [0, 1, 2].map((p) => [p, answered.filter((a) => a.chain === p).length, true])],
    );
  });

  it('sign one checkpoint over the three chains\' heads', async () => {
    clock.advance(10_000);
    const latest = await pollUntil('checkpoint over every record', () => getJson(`${running.base}/api/v1/audit/checkpoint`), (r) => r.json?.tree_size === WALLETS.length);
    const checkpoint = latest.json as PartitionedCheckpoint;
    assert.equal(checkPartitionedCheckpoint(checkpoint, new CheckpointSigner(Buffer.from(KEY, 'base64')).published), null);
    for (let p = 0; p < K; p++) {
      const last = answered.filter((a) => a.chain === p).at(-1)!;
      assert.deepEqual([checkpoint.chains[p].tree_size, checkpoint.chains[p].last_hash], [last.seq, last.hash], `chain ${p}`);
    }
  });
});
