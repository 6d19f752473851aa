// What Redis keeps of its own audit chains' layout: how many chains (AUDIT_PARTITIONS) and the DATA_DIR epoch that set
// it, in one key, so a fresh DATA_DIR with another count is refused; and where each chain of a layout ended, for a new
// epoch's handover record (ARCHITECTURE.md "DATA_DIR epoch").
import { randomUUID } from 'node:crypto';
import type { Config } from '../../config.js';
import { describeTarget, openRedis, redisTarget, type RedisClient, type RedisTarget } from '../../store/redis-connection.js';
import type { ChainLayout, OldChainEnds, SharedLayout } from '../proof/audit-backend.js';
import { ZERO_HASH } from '../record/audit-log.js';
import { chainPrefix } from './partitioned-audit-log.js';
import { ROOT_PREFIX } from './partitioned-checkpoints.js';
import { CLUSTER_AUDIT_PREFIX } from './redis-audit-log.js';

/** One small key of its own (any slot): `{partitions, epoch}` as JSON. */
export const LAYOUT_KEY = 'tg:audit:layout';
const MAX_PARTITIONS = 16;

/** The key prefix of chain p of a layout of `partitions` chains, as the backend opens them. */
function prefixOf(target: RedisTarget, p: number, partitions: number): string {
  if (partitions > 1) return chainPrefix(p, partitions);
  return target.kind === 'cluster' ? CLUSTER_AUDIT_PREFIX : 'tg:audit:';
}

/** Runs `read` on a short-lived connection; a Redis that cannot be reached rejects, naming it. */
async function withRedis<T>(config: Readonly<Config>, read: (client: RedisClient, target: RedisTarget) => Promise<T>): Promise<T> {
  const target = redisTarget(config);
  if (target === null) throw new Error('no Redis is configured (REDIS_URL or REDIS_CLUSTER_NODES) to read it from');
  const client = openRedis(target, { lazyConnect: true, maxRetriesPerRequest: 1, commandTimeout: 5000, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await read(client, target);
  } catch (error) {
    throw new Error(`Redis at ${describeTarget(target)} did not answer: ${(error as Error).message}`, { cause: error });
  } finally {
    client.disconnect();
  }
}

/** Each chain's head under the layout of `config.auditPartitions` chains, and the latest checkpoint signed over them. */
export function redisChainEnds(config: Readonly<Config>): Promise<OldChainEnds> {
  const partitions = config.auditPartitions;
  return withRedis(config, async (client, target) => {
    const chains = [];
    for (let p = 0; p < partitions; p++) {
      const [seq, hash] = await client.hmget(`${prefixOf(target, p, partitions)}head`, 'seq', 'hash');
      chains.push({ chain: p, final_seq: Number(seq ?? 0), final_hash: hash ?? ZERO_HASH });
    }
    const checkpointKey = partitions > 1 ? `${ROOT_PREFIX}checkpoint-latest` : `${prefixOf(target, 0, 1)}checkpoint-latest`;
    const text = await client.get(checkpointKey);
    return { chains, checkpoint: text === null ? null : (JSON.parse(text) as Record<string, unknown>) };
  });
}

export const redisLayout: SharedLayout = {
  read: (config) => withRedis(config, async (client, target) => {
    const text = await client.get(LAYOUT_KEY);
    if (text !== null) return parseLayout(text);
    // A Redis written before the note: the layout its chains show, the asked count first when its chains are there.
    const counts = [config.auditPartitions, ...Array.from({ length: MAX_PARTITIONS }, (_, i) => i + 1)];
    for (const partitions of counts) {
      if (await client.exists(`${prefixOf(target, 0, partitions)}head`)) {
        const inferred = { partitions, epoch: randomUUID() };
        await client.set(LAYOUT_KEY, JSON.stringify(inferred), 'NX');
        return parseLayout((await client.get(LAYOUT_KEY)) ?? JSON.stringify(inferred));
      }
    }
    return null;
  }),
  // SET NX GET (Redis 7.0): one command on one key, so of two first starts racing the first writer wins, on a cluster too.
  claim: (config, layout) => withRedis(config, async (client) => {
    const held = (await client.call('SET', LAYOUT_KEY, JSON.stringify(layout), 'NX', 'GET')) as string | null;
    return held === null ? layout : parseLayout(held);
  }),
  write: (config, layout) => withRedis(config, async (client) => {
    await client.set(LAYOUT_KEY, JSON.stringify(layout));
  }),
};

function parseLayout(text: string): ChainLayout {
  const value = JSON.parse(text) as Partial<ChainLayout>;
  if (!Number.isSafeInteger(value.partitions) || typeof value.epoch !== 'string') {
    throw new Error(`${LAYOUT_KEY} holds ${text}, not {partitions, epoch}: restore it, or delete it to have it written again from the chains Redis holds`);
  }
  return { partitions: value.partitions!, epoch: value.epoch };
}
