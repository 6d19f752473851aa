// Starts a throwaway real Redis Cluster (3 primaries, 1 or 2 replicas each) from redis-server on loopback ports for a test file.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import type { RedisTarget } from '../../src/store/redis-connection.js';
import { freePort, startRedisServer, type RedisServer } from './redis-server.js';
import { pollUntil } from './wait-until.js';

const run = promisify(execFile);

export interface RedisShard {
  primary: RedisServer;
  replicas: RedisServer[];
}

export interface RedisCluster {
  nodes: RedisServer[];
  /** The seed nodes as REDIS_CLUSTER_NODES takes them. */
  seeds: string;
  target: RedisTarget;
  /** The primary that serves `key`'s slot now, and its replicas. */
  shardOf(key: string): Promise<RedisShard>;
  /** Waits until every node reports `cluster_state:ok` and every primary has a replica in sync. */
  settled(withinMs?: number): Promise<void>;
  /** Starts a seventh (eighth, ...) node as one more replica of the primary serving `key`'s slot. */
  addReplica(key: string): Promise<RedisServer>;
  /**
   * Freezes the replicas of `key`'s primary and drops the primary's links to them, so nothing it
   * writes until `resume()` reaches them (a frozen process cannot reconnect; SIGSTOP alone would let
   * the kernel buffer the stream for it). Returns the frozen shard.
   */
  isolateReplicas(key: string): Promise<RedisShard>;
  /** Waits until every replica of `key`'s primary has acknowledged all the primary has written. */
  caughtUp(key: string, withinMs?: number): Promise<void>;
  /**
   * Starts a killed node again on its port, bus port and folder (its `nodes.conf`), as an operator restarting a
   * crashed host does; it rejoins the cluster by itself. Returns the new process, which takes the old one's place in `nodes`.
   */
  restart(node: RedisServer): Promise<RedisServer>;
  stop(): Promise<void>;
}

/** Short enough that a killed primary's replica takes over within seconds; long enough for a busy machine. */
const NODE_TIMEOUT_MS = 2_000;
const NODE_ARGS = ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', String(NODE_TIMEOUT_MS)];
/** Starts of one node, each on newly chosen ports, before giving up: another process may take a port between the choice and the bind. */
const NODE_START_TRIES = 3;

/**
 * A cluster node on a free port, its bus on another (`--cluster-port`): by default the bus is the
 * port + 10,000, which nothing reserved, and past 55,535 does not exist; a run of CI failed on it.
 */
async function startClusterNode(extraArgs: readonly string[] = []): Promise<RedisServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      const args = [...NODE_ARGS, ...extraArgs, '--cluster-port', String(await freePort())];
      const node = await startRedisServer(undefined, { args });
      nodeArgs.set(node, args);
      return node;
    } catch (error) {
      if (attempt >= NODE_START_TRIES || !/Address already in use/.test(String(error))) throw error;
    }
  }
}

/** Each node's arguments (its cluster bus port among them), for a restart on the same addresses. */
const nodeArgs = new WeakMap<RedisServer, readonly string[]>();

/**
 * The killed node's process again, on its folder; stop() also removes the folder, which the first
 * process created and still owns.
 */
async function restartClusterNode(killed: RedisServer): Promise<RedisServer> {
  const args = nodeArgs.get(killed)!;
  const node = await startRedisServer(killed.port, { dir: killed.dir, args });
  nodeArgs.set(node, args);
  return { ...node, stop: async () => {
    await node.stop();
    await killed.stop();
  } };
}

/** `CLUSTER SLOTS` row: start, end, then [host, port, id] of the primary and of each replica. */
type SlotRow = [number, number, ...Array<[string, number, string]>];

async function onNode<T>(node: RedisServer, body: (client: Redis) => Promise<T>): Promise<T> {
  const client = new Redis(node.port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await body(client);
  } finally {
    client.disconnect();
  }
}

/** A node that cannot answer (killed, paused) reads as not ok. */
async function nodeOk(node: RedisServer): Promise<boolean> {
  try {
    return await onNode(node, async (client) => {
      const info = String(await client.cluster('INFO'));
      if (!info.includes('cluster_state:ok')) return false;
      // Every node's map names a replica for every range, as clients and a failover need it.
      const rows = (await client.cluster('SLOTS')) as unknown as SlotRow[];
      if (rows.length === 0 || rows.some((row) => row.length < 4)) return false;
      const replication = await client.info('replication');
      if (!replication.includes('role:master')) return /master_link_status:up/.test(replication) && !/master_sync_in_progress:1/.test(replication);
      return /slave0:.*state=online/.test(replication);
    });
  } catch {
    return false;
  }
}

export interface RedisClusterOptions {
  /** Replicas per primary: 1 (six nodes, the default) or 2 (nine nodes). */
  replicasEach?: 1 | 2;
  /**
   * `cluster-require-full-coverage`: default yes, Redis's own default, under which every node answers
   * CLUSTERDOWN while any slot has no primary; `false` keeps the other primaries serving their slots meanwhile.
   */
  fullCoverage?: boolean;
}

/**
 * Three primaries with `replicasEach` replicas each (six or nine redis-server processes with
 * `--cluster-enabled yes`, each in its own temp folder), joined by `redis-cli --cluster create
 * --cluster-replicas N`; resolves once the cluster serves every slot and every replica is in sync.
 */
export async function startRedisCluster(options: RedisClusterOptions = {}): Promise<RedisCluster> {
  const replicasEach = options.replicasEach ?? 1;
  const extraArgs = options.fullCoverage === false ? ['--cluster-require-full-coverage', 'no'] : [];
  const nodes: RedisServer[] = [];
  try {
    for (let i = 0; i < 3 * (1 + replicasEach); i++) nodes.push(await startClusterNode(extraArgs));
  } catch (error) {
    // The nodes already started hold the test process open: a node that cannot start must not leave them.
    await Promise.all(nodes.map((node) => node.stop()));
    throw error;
  }
  const addresses = nodes.map((node) => `127.0.0.1:${node.port}`);
  const byPort = new Map(nodes.map((node) => [node.port, node]));
  const cluster: RedisCluster = {
    nodes,
    seeds: addresses.join(','),
    target: { kind: 'cluster', nodes: nodes.map((node) => ({ host: '127.0.0.1', port: node.port })) },
    settled: (withinMs = 30_000) => pollUntil('the cluster did not settle', async () => {
      const live = nodes.filter((node) => node.alive());
      return (await Promise.all(live.map(nodeOk))).every(Boolean);
    }, (ok) => ok, withinMs, 100).then(() => undefined),
    shardOf: (key) => shardOf(nodes, byPort, key),
    addReplica: async (key) => {
      const { primary } = await shardOf(nodes, byPort, key);
      const node = await startClusterNode(extraArgs);
      nodes.push(node);
      byPort.set(node.port, node);
      const id = String(await onNode(primary, (client) => client.cluster('MYID')));
      await run('redis-cli', ['--cluster', 'add-node', `127.0.0.1:${node.port}`, `127.0.0.1:${primary.port}`, '--cluster-slave', '--cluster-master-id', id]);
      await cluster.settled();
      await pollUntil('the added replica did not attach', async () => (await shardOf(nodes, byPort, key)).replicas, (replicas) => replicas.includes(node));
      return node;
    },
    isolateReplicas: async (key) => {
      const shard = await shardOf(nodes, byPort, key);
      for (const replica of shard.replicas) replica.pause();
      await onNode(shard.primary, (client) => client.call('CLIENT', 'KILL', 'TYPE', 'replica'));
      return shard;
    },
    caughtUp: async (key, withinMs = 15_000) => {
      const { primary } = await shardOf(nodes, byPort, key);
      await pollUntil('the replicas did not catch up', () => onNode(primary, (client) => client.info('replication')), replicasAtOffset, withinMs);
    },
    restart: async (killed) => {
      const node = await restartClusterNode(killed);
      nodes[nodes.indexOf(killed)] = node;
      byPort.set(node.port, node);
      return node;
    },
    stop: async () => {
      await Promise.all(nodes.map((node) => node.stop()));
    },
  };
  try {
    await run('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', String(replicasEach), '--cluster-yes']);
    await cluster.settled();
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return cluster;
}

/** True when every replica the primary lists has acknowledged its whole replication offset. */
function replicasAtOffset(replication: string): boolean {
  const offset = /master_repl_offset:(\d+)/.exec(replication)?.[1];
  const acked = [...replication.matchAll(/^slave\d+:.*offset=(\d+)/gm)].map((match) => match[1]);
  return acked.length > 0 && acked.every((value) => value === offset);
}

async function shardOf(nodes: RedisServer[], byPort: Map<number, RedisServer>, key: string): Promise<RedisShard> {
  const asked = nodes.find((node) => node.alive())!;
  return onNode(asked, async (client) => {
    const slot = Number(await client.cluster('KEYSLOT', key));
    const rows = (await client.cluster('SLOTS')) as unknown as SlotRow[];
    const row = rows.find(([start, end]) => start <= slot && slot <= end);
    if (!row) throw new Error(`no node serves slot ${slot}`);
    const primary = byPort.get(Number(row[2][1]))!;
    // The primary's own account of its replicas: other nodes learn of them by gossip, later.
    const replication = await onNode(primary, (direct) => direct.info('replication'));
    const ports = [...replication.matchAll(/^slave\d+:.*port=(\d+)/gm)].map((match) => Number(match[1]));
    return { primary, replicas: ports.map((port) => byPort.get(port)!) };
  });
}
