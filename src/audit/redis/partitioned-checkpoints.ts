// Signed checkpoints of a partitioned log in Redis, under `{tg:audit:root}:`: one slot of their own, apart from every
// chain's (ARCHITECTURE.md "Partitioned audit chains"); first writer of a size wins, as the single chain's store does.
import { asTarget, openRedis, type RedisClient, type RedisTarget } from '../../store/redis-connection.js';
import type { AuditLineSource } from '../record/audit-log.js';
import type { PublishedKey } from '../proof/checkpoint.js';
import { parseCheckpoint } from '../proof/checkpoint-store.js';
import type { PartitionedCheckpoint } from '../proof/partition-root.js';
import type { PartitionedCheckpointStore } from '../proof/partitioned-tree.js';

export const ROOT_PREFIX = '{tg:audit:root}:';

const ADD_LUA = `
redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
local kept = redis.call('HGET', KEYS[1], ARGV[1])
local newest = tonumber(redis.call('GET', KEYS[3]) or '0')
if newest < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[2], kept)
  redis.call('SET', KEYS[3], ARGV[1])
end
return kept`;

interface AddCommand {
  tgRootCheckpointAdd(...keysThenArgs: string[]): Promise<string>;
}

export class RedisPartitionedCheckpoints implements PartitionedCheckpointStore {
  private constructor(private readonly client: RedisClient & AddCommand, private readonly chains: readonly AuditLineSource[]) {}

  /** Refuses to open when the chains' checkpoints are signed with another key, as the single chain's store does. */
  static async connect(target: string | RedisTarget, chains: readonly AuditLineSource[], key: PublishedKey): Promise<RedisPartitionedCheckpoints> {
    const client = openRedis(asTarget(target), { lazyConnect: true, maxRetriesPerRequest: 2, commandTimeout: 5000 }) as RedisClient & AddCommand;
    client.on('error', () => undefined);
    client.defineCommand('tgRootCheckpointAdd', { lua: ADD_LUA, numberOfKeys: 3 });
    try {
      await client.connect();
      await client.set(`${ROOT_PREFIX}checkpoint-key`, key.key_id, 'NX');
      const shared = await client.get(`${ROOT_PREFIX}checkpoint-key`);
      if (shared !== key.key_id) {
        throw new Error(`the shared audit chains' checkpoints are signed with key ${shared}, this instance holds ${key.key_id}: give every instance the same AUDIT_SIGNING_KEY`);
      }
    } catch (error) {
      client.disconnect();
      throw error;
    }
    return new RedisPartitionedCheckpoints(client, chains);
  }

  async latest(): Promise<PartitionedCheckpoint | null> {
    return parse(await this.client.get(`${ROOT_PREFIX}checkpoint-latest`));
  }

  async atSize(treeSize: number): Promise<PartitionedCheckpoint | null> {
    return parse(await this.client.hget(`${ROOT_PREFIX}checkpoints`, String(treeSize)));
  }

  /**
   * Each chain must still hold the record its head names (a Redis emptied or rewound under a running
   * instance is refused); the chains live in other slots, so they are read before the script, not in it.
   */
  async add(checkpoint: PartitionedCheckpoint): Promise<PartitionedCheckpoint> {
    for (const head of checkpoint.chains) {
      if (head.tree_size === 0) continue;
      const [line] = await this.chains[head.chain].readLines(head.tree_size, 1);
      if (line?.toString('latin1', 0, 64) !== head.last_hash) {
        throw new Error(`chain ${head.chain} does not hold record ${head.tree_size} as this checkpoint names it`);
      }
    }
    const p = ROOT_PREFIX;
    const kept = await this.client.tgRootCheckpointAdd(
      `${p}checkpoints`, `${p}checkpoint-latest`, `${p}checkpoint-latest-size`, String(checkpoint.tree_size), JSON.stringify(checkpoint),
    );
    return parse(kept) ?? Promise.reject(new Error('Redis kept a malformed checkpoint'));
  }

  async close(): Promise<void> {
    await this.client.quit().catch(() => this.client.disconnect());
  }
}

function parse(text: string | null): PartitionedCheckpoint | null {
  const value = text === null ? null : parseCheckpoint(text) as unknown as PartitionedCheckpoint | null;
  return value && Array.isArray(value.chains) ? value : null;
}
