// AUDIT_PARTITIONS=3 on a 6-node Redis Cluster (one replica per primary), two service processes under load: SIGKILL the
// primary of one chain, and only that chain's wallets are refused, until the killed node is back as a replica.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Cluster } from 'ioredis';
import { chainPrefix } from '../../../../src/audit/redis/partitioned-audit-log.js';
import { keySlot } from '../../../../src/audit/redis/partitioned-slots.js';
import { assertAnswersHeld, countBy, partitionedLoad, type PartitionedLoad } from '../../../support/partitioned-load.js';
import { startRedisCluster, type RedisCluster } from '../../../support/redis-cluster.js';
import { SAMPLE_REGISTRY, getJson } from '../../../support/service.js';
import { startServiceProcess, type ServiceProcess } from '../../../support/service-process.js';
import { useTempDirs } from '../../../support/temp-dirs.js';
import { waitUntil } from '../../../support/wait-until.js';

const K = 3;
/** The chain whose primary dies; the others keep theirs. */
const TOUCHED = 1;
const SPARED = [0, 2];
const tempDir = useTempDirs('cluster-partition-loss-');
let cluster: RedisCluster;
let instances: ServiceProcess[] = [];
let raw: Cluster;
let traffic: PartitionedLoad | null = null;

before(async () => {
  cluster = await startRedisCluster();
  const env = {
    PORT: '0', WORKERS: '1', AUDIT_FSYNC: 'off', REGISTRY_FILE: SAMPLE_REGISTRY, REDIS_URL: undefined, REDIS_CLUSTER_NODES: cluster.seeds,
    AUDIT_PARTITIONS: String(K), AUDIT_REPLICA_TIMEOUT_MS: '500', JWT_SECRET: 'cluster-partition-loss-secret-of-at-least-32-characters',
    AUDIT_SIGNING_KEY: Buffer.alloc(32, 9).toString('base64'), RATE_LIMIT_IP_FREE: '1000000', RATE_LIMIT_WINDOW_SECONDS: '3600',
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

/** Both instances' last `count` answers for `chains` are verdicts. */
function answering(load: PartitionedLoad, from: number, chains: readonly number[], count: number): boolean {
  return instances.every((_, i) => {
    const recent = load.since(from, i, chains).slice(-count);
    return recent.length === count && recent.every((a) => a.status === 200);
  });
}

/** Both instances have answered at least `count` times for each of `chains` since `from`. */
function answeredEach(load: PartitionedLoad, from: number, chains: readonly number[], count: number): boolean {
  return instances.every((_, i) => chains.every((p) => load.since(from, i, [p]).length >= count));
}

const statusOf = async (instance: ServiceProcess) => (await getJson(`${instance.base}/status.json`)).json;

describe('a lost primary under one of three audit chains, one replica per primary', () => {
  it('refuses only that chain\'s wallets, never acknowledges a record no replica holds, and resumes once the node is back', async (t) => {
    const shards = [];
    for (let p = 0; p < K; p++) shards.push(await cluster.shardOf(`${chainPrefix(p, K)}head`));
    assert.equal(new Set(shards.map((shard) => shard.primary.port)).size, K, 'each chain on a primary of its own, so one kill touches one chain');
    const load = (traffic = partitionedLoad(instances.map((instance) => instance.base), K));
    await waitUntil(() => answering(load, 0, [0, 1, 2], 10), 'verdicts on every chain before the kill', 60_000, 50);

    const killed = shards[TOUCHED].primary;
    await killed.kill();
    const killedAt = load.answers.length;
    // The cluster promotes the only replica (cluster-node-timeout plus an election); it then has no replica of its own.
    // Until then the slot map still names the dead primary, which answers nothing.
    const promoted = () => cluster.shardOf(`${chainPrefix(TOUCHED, K)}head`).then((shard) => shard.primary !== killed, () => false);
    await waitUntil(promoted, 'the replica promoted', 60_000, 100);
    try {
      await waitUntil(() => answering(load, killedAt, SPARED, 20), 'the spared chains answering verdicts on both instances after the failover', 60_000, 50);
    } catch (error) {
      throw new Error(`${(error as Error).message}; since the kill: ${JSON.stringify(countBy(load.answers.slice(killedAt)))}`, { cause: error });
    }

    // While the node stays down: the spared chains answer every request, the touched chain refuses every one.
    const downFrom = load.answers.length;
    await waitUntil(() => answeredEach(load, downFrom, [0, 1, 2], 15), 'traffic on every chain while the node is down', 60_000, 50);
    const whileDown = load.answers.slice(downFrom);
    t.diagnostic(`while the node was down: ${JSON.stringify(countBy(whileDown))}`);
    assert.deepEqual(whileDown.filter((a) => a.chain !== TOUCHED && a.status !== 200), [], 'spared chains: verdicts only');
    assert.deepEqual(whileDown.filter((a) => a.chain === TOUCHED && (a.status !== 503 || a.code !== 'audit_unavailable')), [], 'touched chain: 503 audit_unavailable only');
    for (const instance of instances) {
      const status = await statusOf(instance);
      const audit = status.components.audit;
      assert.deepEqual([status.status, audit.status, audit.chains_down, audit.chains.map((c: { status: string }) => c.status)],
        ['degraded', 'degraded', [TOUCHED], ['ok', 'down', 'ok']], JSON.stringify(audit));
      assert.equal(audit.chains[TOUCHED].reason, `the primary holding the audit chain (slot ${keySlot(`${chainPrefix(TOUCHED, K)}head`)}) has 0 of the 1 replicas `
        + 'AUDIT_REPLICA_ACKS asks for online; records resume by themselves once a replica is back (restart the lost node: it rejoins as a replica)');
      assert.equal(audit.reason, `audit chain ${TOUCHED}: ${audit.chains[TOUCHED].reason}; only the wallets of chain ${TOUCHED} are refused (503 audit_unavailable), the other chains take records`);
      // Liveness stays ok: a load balancer taking the instance out would stop the chains that still answer.
      const health = await getJson(`${instance.base}/healthz`);
      assert.deepEqual([health.status, health.json.status], [200, 'ok']);
    }

    // The operator restarts the killed node; it rejoins as the promoted node's replica, and the chain resumes by itself.
    await cluster.restart(killed);
    const restartedAt = load.answers.length;
    await waitUntil(() => answering(load, restartedAt, [TOUCHED], 10), 'the touched chain answering verdicts on both instances again', 60_000, 50);
    const backFrom = load.answers.length;
    await waitUntil(() => answeredEach(load, backFrom, [0, 1, 2], 10), 'traffic on every chain after the return', 60_000, 50);
    await traffic.stop();
    traffic = null;
    assert.deepEqual(load.answers.slice(backFrom).filter((a) => a.status !== 200), [], 'every chain answers verdicts again');
    for (const instance of instances) {
      const { status, components } = await statusOf(instance);
      assert.deepEqual([status, components.audit.status, components.audit.chains_down], ['ok', 'ok', []]);
    }

    t.diagnostic(`all answers: ${JSON.stringify(countBy(load.answers))}`);
    t.diagnostic(`what the spared chains' refusals said (the cluster's failover window): ${JSON.stringify([...new Set(load.answers.filter((a) => a.chain !== TOUCHED && a.status !== 200).map((a) => String(a.error)))])}`);
    await assertAnswersHeld(raw, load.answers, K);
  });
});
