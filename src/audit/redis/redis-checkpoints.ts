// The Redis backend's signed checkpoints: hashes in the Redis that holds the shared chain, so every instance
// serves every checkpoint (ARCHITECTURE.md "Checkpoints and proofs").
import { asTarget, openRedis, type RedisClient, type RedisTarget } from '../../store/redis-connection.js';
import type { Checkpoint, PublishedKey } from '../proof/checkpoint.js';
import { parseCheckpoint, type CheckpointStore } from '../proof/checkpoint-store.js';

// First writer of a size wins; `latest` only moves forward. A checkpoint whose last record is not the
// chain's record of that seq (a Redis emptied or rewound under a running instance) is refused.
const ADD_LUA = `
local line = redis.call('HGET', KEYS[4], ARGV[1])
if (not line) or string.sub(line, 1, 64) ~= ARGV[3] then
  return redis.error_reply('the shared chain does not hold record ' .. ARGV[1] .. ' as this checkpoint names it')
end
redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
local kept = redis.call('HGET', KEYS[1], ARGV[1])
local newest = tonumber(redis.call('GET', KEYS[3]) or '0')
if newest < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[2], kept)
  redis.call('SET', KEYS[3], ARGV[1])
end
return kept`;

interface AddCommand {
  tgCheckpointAdd(...keysThenArgs: string[]): Promise<string>;
}

/**
 * A connection for a checkpoint store under `prefix` with its add script defined, once `checkpoint-key` there names
 * `key`: the first instance writes it, and one holding another key is refused, since checkpoints of two keys could not
 * be told apart by a verifier holding one. The single chain's store and the partitioned one open theirs here.
 */
export async function connectCheckpoints<T>(target: string | RedisTarget, prefix: string, key: PublishedKey, add: { name: string; lua: string; numberOfKeys: number }): Promise<RedisClient & T> {
  const client = openRedis(asTarget(target), { lazyConnect: true, maxRetriesPerRequest: 2, commandTimeout: 5000 }) as RedisClient & T;
  client.on('error', () => undefined);
  client.defineCommand(add.name, { lua: add.lua, numberOfKeys: add.numberOfKeys });
  try {
    await client.connect();
    await client.set(`${prefix}checkpoint-key`, key.key_id, 'NX');
    const shared = await client.get(`${prefix}checkpoint-key`);
    if (shared !== key.key_id) {
      throw new Error(`the shared audit chain's checkpoints are signed with key ${shared}, this instance holds ${key.key_id}: give every instance the same AUDIT_SIGNING_KEY`);
    }
  } catch (error) {
    client.disconnect();
    throw error;
  }
  return client;
}

/**
 * Keys under the audit prefix (on a cluster its hash tag puts them in the chain's slot, where the script reads `records`): `checkpoints` (hash tree_size -> JSON), `checkpoint-latest`
 * (JSON), `checkpoint-latest-size`, `checkpoint-key` (the key_id every instance must sign with);
 * the script reads `records` (redis-audit-log.ts) to check the checkpoint's last record.
 */
export class RedisCheckpointStore implements CheckpointStore {
  private constructor(private readonly client: RedisClient & AddCommand, private readonly prefix: string) {}

  /** Refuses to open when the shared chain's checkpoints are signed with another key. */
  static async connect(target: string | RedisTarget, prefix: string, key: PublishedKey): Promise<RedisCheckpointStore> {
    const client = await connectCheckpoints<AddCommand>(target, prefix, key, { name: 'tgCheckpointAdd', lua: ADD_LUA, numberOfKeys: 4 });
    return new RedisCheckpointStore(client, prefix);
  }

  async latest(): Promise<Checkpoint | null> {
    const text = await this.client.get(`${this.prefix}checkpoint-latest`);
    return text === null ? null : parseCheckpoint(text);
  }

  async atSize(treeSize: number): Promise<Checkpoint | null> {
    const text = await this.client.hget(`${this.prefix}checkpoints`, String(treeSize));
    return text === null ? null : parseCheckpoint(text);
  }

  async add(checkpoint: Checkpoint): Promise<Checkpoint> {
    const p = this.prefix;
    const kept = await this.client.tgCheckpointAdd(
      `${p}checkpoints`, `${p}checkpoint-latest`, `${p}checkpoint-latest-size`, `${p}records`,
      String(checkpoint.tree_size), JSON.stringify(checkpoint), checkpoint.last_hash,
    );
    return parseCheckpoint(kept) ?? Promise.reject(new Error('Redis kept a malformed checkpoint'));
  }

  async close(): Promise<void> {
    await this.client.quit().catch(() => this.client.disconnect());
  }
}
