// The topology docs/audit-records.md "On a Redis Cluster" recommends: 3 primaries with 2 replicas each, AUDIT_REPLICA_ACKS=1,
// cluster-require-full-coverage no, AUDIT_PARTITIONS=3. SIGKILL one chain's primary under load from two service
// processes: the other chains never stop, and the touched one answers again after the failover, with no operator action.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Cluster } from 'ioredis';
import { chainPrefix } from '../../../../src/audit/redis/partitioned-audit-log.js';
import { assertAnswersHeld, countBy, partitionedLoad, type PartitionedLoad } from '../../../support/partitioned-load.js';
import { startRedisCluster, type RedisCluster } from '../../../support/redis-cluster.js';
import { SAMPLE_REGISTRY, getJson } from '../../../support/service.js';
import { startServiceProcess, type ServiceProcess } from '../../../support/service-process.js';
import { useTempDirs } from '../../../support/temp-dirs.js';
import { waitUntil } from '../../../support/wait-until.js';

const K = 3;
/** The chain whose primary dies. */
const TOUCHED = 2;
const tempDir = useTempDirs('cluster-partition-failover-');
let cluster: RedisCluster;
let instances: ServiceProcess[] = [];
let raw: Cluster;
let traffic: PartitionedLoad | null = null;

before(async () => {
  cluster = await startRedisCluster({ replicasEach: 2, fullCoverage: false });
  const env = {
    PORT: '0', WORKERS: '1', AUDIT_FSYNC: 'off', REGISTRY_FILE: SAMPLE_REGISTRY, REDIS_URL: undefined, REDIS_CLUSTER_NODES: cluster.seeds,
    AUDIT_PARTITIONS: String(K), AUDIT_REPLICA_ACKS: '1', AUDIT_REPLICA_TIMEOUT_MS: '500', AUDIT_SIGNING_KEY: Buffer.alloc(32, 11).toString('base64'),
    JWT_SECRET: 'cluster-partition-failover-secret-of-at-least-32-characters', RATE_LIMIT_IP_FREE: '1000000', RATE_LIMIT_WINDOW_SECONDS: '3600',
  };
  for (let i = 0; i < 2; i++) instances.push(await startServiceProcess({ ...env, DATA_DIR: await tempDir() }));
  raw = new Cluster(cluster.nodes.map((node) => ({ host: '127.0.0.1', port: node.port })), { scaleReads: 'master' });
  raw.on('error', () => undefined);
});
after(async () => {
  await traffic?.stop();
  raw?.disconnect();
  await Promise.all(instances.map((instance) => instance.stop()));
  await cluster?.stop();
});

/** Both instances' last `count` answers for each chain are verdicts. */
function answering(load: PartitionedLoad, from: number, count: number): boolean {
  return instances.every((_, i) => [0, 1, 2].every((p) => {
    const recent = load.since(from, i, [p]).slice(-count);
    return recent.length === count && recent.every((a) => a.status === 200);
  }));
}

describe('a lost primary under one of three audit chains, two replicas per primary and AUDIT_REPLICA_ACKS=1', () => {
  it('costs only the touched chain its failover window: every chain answers verdicts again with no operator action', async (t) => {
    const shards = [];
    for (let p = 0; p < K; p++) shards.push(await cluster.shardOf(`${chainPrefix(p, K)}head`));
    assert.equal(new Set(shards.map((shard) => shard.primary.port)).size, K, 'each chain on a primary of its own');
    assert.deepEqual(shards.map((shard) => shard.replicas.length), [2, 2, 2]);
    const load = (traffic = partitionedLoad(instances.map((instance) => instance.base), K));
    await waitUntil(() => answering(load, 0, 10), 'verdicts on every chain before the kill', 60_000, 50);

    const killed = shards[TOUCHED].primary;
    await killed.kill();
    const killedAt = load.answers.length;
    // Until the failover the slot map still names the dead primary, which answers nothing.
    const promoted = () => cluster.shardOf(`${chainPrefix(TOUCHED, K)}head`).then((shard) => shard.primary !== killed && shard.replicas.length === 1, () => false);
    await waitUntil(promoted, 'a replica promoted, the other following it', 60_000, 100);
    try {
      await waitUntil(() => answering(load, killedAt, 20), 'every chain answering verdicts on both instances after the failover', 60_000, 50);
    } catch (error) {
      throw new Error(`${(error as Error).message}; since the kill: ${JSON.stringify(countBy(load.answers.slice(killedAt)))}`, { cause: error });
    }
    const steadyFrom = load.answers.length;
    await waitUntil(() => instances.every((_, i) => [0, 1, 2].every((p) => load.since(steadyFrom, i, [p]).length >= 15)), 'traffic on every chain after the failover', 60_000, 50);
    await traffic.stop();
    traffic = null;
    t.diagnostic(`since the kill: ${JSON.stringify(countBy(load.answers.slice(killedAt)))}`);

    assert.deepEqual(load.answers.slice(steadyFrom).filter((a) => a.status !== 200), [], 'every chain answers verdicts after the failover');
    // The spared chains' audit never refused: what they lost was the store's keys on the dead node, for its failover window.
    assert.deepEqual(load.answers.filter((a) => a.chain !== TOUCHED && a.code === 'audit_unavailable'), [], 'no spared chain refused for the audit log');
    for (const instance of instances) {
      const { json } = await getJson(`${instance.base}/status.json`);
      assert.deepEqual([json.components.audit.status, json.components.audit.chains_down], ['ok', []], JSON.stringify(json.components.audit));
    }
    await assertAnswersHeld(raw, load.answers, K);
  });
});
