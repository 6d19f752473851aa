// The one place a Redis connection is made: a single node (REDIS_URL) or a Redis Cluster (REDIS_CLUSTER_NODES).
import { createRequire } from 'node:module';
import type { Cluster, ClusterOptions, Redis, RedisOptions } from 'ioredis';

/**
 * ioredis, loaded with the first connection rather than with this module: a service without REDIS_URL or
 * REDIS_CLUSTER_NODES never needs it, and loading it cost about 0.2 s of CPU at every start and test process.
 * A client exists only after this ran, so isCluster() never loads it.
 */
let ioredis: typeof import('ioredis') | undefined;
function loadIoredis(): typeof import('ioredis') {
  return (ioredis ??= createRequire(import.meta.url)('ioredis') as typeof import('ioredis'));
}

/** Where the shared Redis is: one node by URL, or a cluster by its seed nodes (ARCHITECTURE.md "Redis Cluster"). */
export type RedisTarget =
  | { kind: 'node'; url: string }
  | { kind: 'cluster'; nodes: ReadonlyArray<{ host: string; port: number }> };

/** Both clients share ioredis's command set; code that talks to Redis takes either. */
export type RedisClient = Redis | Cluster;

/** The target the configuration names, or null without a shared Redis. */
export function redisTarget(config: { redisUrl: string | null; redisClusterNodes: readonly string[] | null }): RedisTarget | null {
  if (config.redisClusterNodes) return { kind: 'cluster', nodes: config.redisClusterNodes.map(parseNode) };
  return config.redisUrl ? { kind: 'node', url: config.redisUrl } : null;
}

/** `host:port` as the cluster client wants it (the config schema already checked the shape). */
function parseNode(text: string): { host: string; port: number } {
  const colon = text.lastIndexOf(':');
  return { host: text.slice(0, colon), port: Number(text.slice(colon + 1)) };
}

/** A string is a single node's URL (what callers passed before clusters). */
export function asTarget(target: string | RedisTarget): RedisTarget {
  return typeof target === 'string' ? { kind: 'node', url: target } : target;
}

/**
 * Connection options for one node; on a cluster they apply to every node's connection, and the
 * client-wide ones (offline queue, lazy connect, reconnecting) to the cluster client itself.
 * `retryStrategy` is the whole client's: a cluster retries its slot map, never a lost node, which
 * it replaces by the replica the cluster promotes.
 */
export function openRedis(target: RedisTarget, options: RedisOptions): RedisClient {
  const { Cluster, Redis } = loadIoredis();
  if (target.kind === 'node') return new Redis(target.url, options);
  const { enableOfflineQueue, lazyConnect, retryStrategy, ...perNode } = options;
  const clusterOptions: ClusterOptions = {
    redisOptions: perNode,
    lazyConnect,
    // ioredis's default: true, as for a single node.
    enableOfflineQueue: enableOfflineQueue ?? true,
    clusterRetryStrategy: retryStrategy ?? ((attempt: number) => Math.min(100 + attempt * 2, 2_000)),
    // Reads go to primaries: a replica may lag the chain head an append was just refused on.
    scaleReads: 'master',
  };
  return new Cluster([...target.nodes], clusterOptions);
}

export function isCluster(client: RedisClient): client is Cluster {
  return ioredis !== undefined && client instanceof ioredis.Cluster;
}

/** The variable and value for messages, any password masked. */
export function describeTarget(target: RedisTarget): string {
  if (target.kind === 'cluster') return `REDIS_CLUSTER_NODES=${target.nodes.map((n) => `${n.host}:${n.port}`).join(',')}`;
  return `REDIS_URL=${redactRedisUrl(target.url)}`;
}

/** The URL with any password masked, safe for logs and error messages. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '<unparseable URL>';
  }
}

/** Removes a URL's password from a client's error message. */
export function scrubPassword(message: string, target: RedisTarget): string {
  if (target.kind === 'cluster') return message;
  let password = '';
  try {
    password = decodeURIComponent(new URL(target.url).password);
  } catch {
    return message;
  }
  return password ? message.split(password).join('***') : message;
}

/** Resolves on the client's first ready connection; rejects on its first error or after `timeoutMs`. */
export function whenReady(client: RedisClient, timeoutMs: number): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const finish = (error?: Error): void => {
      clearTimeout(timer);
      client.off('ready', onReady);
      client.off('error', finish);
      if (error) reject(error);
      else resolve();
    };
    const onReady = (): void => finish();
    const timer = setTimeout(() => finish(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    client.once('ready', onReady);
    client.once('error', finish);
  });
}
