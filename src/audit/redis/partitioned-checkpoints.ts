// Signed checkpoints of a partitioned log in Redis, under `{tg:audit:root}:`: one slot of their own, apart from every
// chain's (ARCHITECTURE.md "Partitioned audit chains"); each stored one extends the one before it chain by chain.
import type { RedisClient, RedisTarget } from '../../store/redis-connection.js';
import type { AuditLineSource } from '../record/audit-log.js';
import type { PublishedKey } from '../proof/checkpoint.js';
import { parseCheckpoint } from '../proof/checkpoint-store.js';
import type { PartitionedCheckpoint } from '../proof/partition-root.js';
import type { PartitionedCheckpointStore } from '../proof/partitioned-tree.js';
import { connectCheckpoints } from './redis-checkpoints.js';

export const ROOT_PREFIX = '{tg:audit:root}:';

// Stored checkpoints extend one another chain by chain, so a consistency proof exists between any two of them:
// instances sign from their own views of the chains, which trail each other by different records, and a sum of
// sizes above the latest's can still hold a chain below it. Such a checkpoint, or one not above the latest, is
// not stored; the latest is returned instead. First writer of a size wins, as on the single chain.
const ADD_LUA = `
local kept = redis.call('HGET', KEYS[1], ARGV[1])
if kept then return kept end
local latest = redis.call('GET', KEYS[2])
if latest then
  local newest = cjson.decode(latest)
  if newest.tree_size >= tonumber(ARGV[1]) then return latest end
  local chains = cjson.decode(ARGV[2]).chains
  for i, head in ipairs(newest.chains) do
    if chains[i] == nil or chains[i].tree_size < head.tree_size then return latest end
  end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('SET', KEYS[2], ARGV[2])
redis.call('SET', KEYS[3], ARGV[1])
return ARGV[2]`;

interface AddCommand {
  tgRootCheckpointAdd(...keysThenArgs: string[]): Promise<string>;
}

export class RedisPartitionedCheckpoints implements PartitionedCheckpointStore {
  private constructor(private readonly client: RedisClient & AddCommand, private readonly chains: readonly AuditLineSource[]) {}

  /** Refuses to open when the chains' checkpoints are signed with another key, as the single chain's store does. */
  static async connect(target: string | RedisTarget, chains: readonly AuditLineSource[], key: PublishedKey): Promise<RedisPartitionedCheckpoints> {
    const client = await connectCheckpoints<AddCommand>(target, ROOT_PREFIX, key, { name: 'tgRootCheckpointAdd', lua: ADD_LUA, numberOfKeys: 3 });
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
