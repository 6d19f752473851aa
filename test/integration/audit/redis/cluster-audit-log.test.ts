// RedisAuditLog on a real 6-node Redis Cluster: the shared contract, its checkpoints, and WAIT's durable acknowledgement.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Cluster } from 'ioredis';
import { RedisAuditLog, type RedisAuditLogOptions } from '../../../../src/audit/redis/redis-audit-log.js';
import { RedisCheckpointStore } from '../../../../src/audit/redis/redis-checkpoints.js';
import { keySlot } from '../../../../src/audit/redis/partitioned-slots.js';
import { AuditReplicaError } from '../../../../src/audit/redis/replica-acks.js';
import { WALLET_A, WALLET_B, WALLET_C, checkChain, sampleEntry } from '../../../support/audit-fixtures.js';
import { auditLogContract } from '../../../support/audit-log-contract.js';
import { startRedisCluster, type RedisCluster } from '../../../support/redis-cluster.js';
import { useTempDirs } from '../../../support/temp-dirs.js';
import { waitUntil } from '../../../support/wait-until.js';

const tempDir = useTempDirs('cluster-audit-');
let cluster: RedisCluster;
let chains = 0;
let raw: Cluster;
before(async () => {
  cluster = await startRedisCluster();
  raw = new Cluster(cluster.target.kind === 'cluster' ? [...cluster.target.nodes] : [], { scaleReads: 'master' });
});
after(async () => {
  raw?.disconnect();
  await cluster?.stop();
});

/** What a failover that kept only records up to `seq` leaves: the head rewound, the records after it gone. */
async function dropAfter(prefix: string, seq: number, wallet: string): Promise<void> {
  const line = (await raw.hget(`${prefix}records`, String(seq)))!;
  const head = Number(await raw.hget(`${prefix}head`, 'seq'));
  const gone = Array.from({ length: head - seq }, (_, i) => String(seq + 1 + i));
  await raw.multi().hdel(`${prefix}records`, ...gone).hset(`${prefix}head`, 'seq', String(seq), 'hash', line.slice(0, 64))
    .hdel(`${prefix}wallet-heads`, wallet.toLowerCase()).del(`${prefix}wallet:${wallet.toLowerCase()}`).exec();
}

/** A chain of its own: a hash tag, as the service's `{tg:audit}:`, so all its keys share a slot. */
function freshPrefix(): string {
  chains += 1;
  return `{tg:test${chains}}:`;
}

/** A log as the service opens it on a cluster: the epoch watch on, one replica acknowledging each append. */
async function opener(prefix: string, options: Partial<RedisAuditLogOptions> = {}): Promise<() => Promise<RedisAuditLog>> {
  const memoryFile = join(await tempDir(), 'redis-chain-head.json');
  return () => RedisAuditLog.connect(cluster.target, {
    prefix, now: Date.now, watch: { memoryFile, now: Date.now }, replicas: { acks: 1, timeoutMs: 2_000 }, ...options,
  });
}

auditLogContract({
  name: 'RedisAuditLog on a Redis Cluster',
  writesFor500: 2,
  freshStore: () => opener(freshPrefix()),
});

describe('RedisAuditLog on a Redis Cluster', () => {
  it('puts the chain under the {tg:audit}: hash tag by default and keeps its signed checkpoints in the chain\'s slot', async () => {
    const log = await RedisAuditLog.connect(cluster.target, { now: Date.now });
    try {
      assert.equal(log.prefix, '{tg:audit}:');
      const record = await log.append(sampleEntry(WALLET_A, 0));
      const key = { key_id: 'k1', algorithm: 'ed25519', public_key: 'AA' } as never;
      const store = await RedisCheckpointStore.connect(cluster.target, log.prefix, key);
      try {
        const checkpoint = { tree_size: record.seq, last_hash: record.hash, root_hash: 'r', key_id: 'k1', signature: 's', timestamp: 't' } as never;
        await store.add(checkpoint);
        assert.equal((await store.latest())?.tree_size, record.seq);
      } finally {
        await store.close();
      }
    } finally {
      await log.close();
    }
  });

  it('fails an append that fewer replicas acknowledge than asked for, and takes it once they can', async () => {
    const prefix = freshPrefix();
    const greedy = await (await opener(prefix, { replicas: { acks: 2, timeoutMs: 300 } }))();
    try {
      // Each primary has one replica: two can never confirm.
      await assert.rejects(greedy.append(sampleEntry(WALLET_A, 0)), (error: Error) => {
        assert.ok(error instanceof AuditReplicaError, String(error));
        assert.equal(error.message, 'audit append not acknowledged by replicas: 1 of the 2 replicas asked for (AUDIT_REPLICA_ACKS) acknowledged the record within 300 ms');
        return true;
      });
    } finally {
      await greedy.close();
    }
    const log = await (await opener(prefix))();
    try {
      const record = await log.append(sampleEntry(WALLET_B, 1));
      // The unacknowledged record stays in the chain (its caller was answered 503, never a verdict); the chain is whole.
      assert.equal(record.seq, 2);
      assert.equal(checkChain(await log.readLines(1, 10)).length, 2);
    } finally {
      await log.close();
    }
  });

  it('reports in readiness, before any append, a chain primary with fewer replicas than asked for', async () => {
    const prefix = freshPrefix();
    const greedy = await (await opener(prefix, { replicas: { acks: 2, timeoutMs: 300 } }))();
    try {
      assert.equal(greedy.readiness(), `the primary holding the audit chain (slot ${keySlot(`${prefix}head`)}) has 1 of the 2 replicas AUDIT_REPLICA_ACKS asks for online; `
        + 'records resume by themselves once a replica is back (restart the lost node: it rejoins as a replica)');
    } finally {
      await greedy.close();
    }
  });

  it('comes back after a failover dropped a record no replica confirmed, and refuses once an acknowledged one is gone', async () => {
    const prefix = freshPrefix();
    const steady = await RedisAuditLog.connect(cluster.target, {
      prefix, now: Date.now, replicas: { acks: 1, timeoutMs: 2_000 }, watch: { memoryFile: join(await tempDir(), 'head.json'), now: Date.now, checkMs: 20 },
    });
    const greedy = await (await opener(prefix, { replicas: { acks: 2, timeoutMs: 300 } }))();
    try {
      assert.equal((await steady.append(sampleEntry(WALLET_A, 0))).seq, 1);
      await assert.rejects(greedy.append(sampleEntry(WALLET_B, 1)), AuditReplicaError);
      // The steady instance has seen seq 2 at the head (its checks read it) before the failover drops it.
      await waitUntil(async () => (await steady.head()).seq === 2 && steady.watchStatus()?.status === 'ok', 'seq 2 seen');
      await dropAfter(prefix, 1, WALLET_B);
      const next = await steady.append(sampleEntry(WALLET_C, 2));
      assert.equal(next.seq, 2);
      assert.equal(steady.readiness(), null);
      // Seq 2 is acknowledged now: a store that loses it has lost what a verdict was answered on.
      await dropAfter(prefix, 1, WALLET_C);
      await waitUntil(() => steady.readiness() !== null, 'the loss noticed');
      assert.match(String(steady.readiness()), /^the audit chain in Redis cannot be trusted: the store's chain head is seq 1, behind the epoch .* up to seq 2 this instance saw: acknowledged records are gone$/);
    } finally {
      await Promise.all([steady, greedy].map((l) => l.close()));
    }
  });

  it('fails appends while the replica of the chain\'s primary is frozen, and resumes when it answers again', async () => {
    const prefix = freshPrefix();
    const log = await (await opener(prefix, { replicas: { acks: 1, timeoutMs: 300 } }))();
    const { primary, replicas } = await cluster.shardOf(`${prefix}head`);
    try {
      assert.equal((await log.append(sampleEntry(WALLET_A, 0))).seq, 1);
      replicas[0].pause();
      await assert.rejects(log.append(sampleEntry(WALLET_B, 1)), /^AuditReplicaError: audit append not acknowledged by replicas: 0 of the 1 replicas/);
      replicas[0].resume();
      await cluster.settled();
      const record = await log.append(sampleEntry(WALLET_C, 2));
      assert.equal(record.seq, 3);
      assert.equal(checkChain(await log.readLines(1, 10)).length, 3);
      assert.ok(primary.alive());
    } finally {
      replicas[0].resume();
      await log.close();
    }
  });
});
