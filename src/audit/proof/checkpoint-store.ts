// Where signed checkpoints are kept: a file beside the file audit log, or hashes in the Redis that
// holds the shared chain, so every instance serves every checkpoint (ARCHITECTURE.md "Checkpoints and proofs").
import { constants } from 'node:fs';
import { open, readFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { Checkpoint, PublishedKey } from './checkpoint.js';

export interface CheckpointStore {
  latest(): Promise<Checkpoint | null>;
  atSize(treeSize: number): Promise<Checkpoint | null>;
  /** Keeps the checkpoint unless one of its size is kept already; resolves to the one kept. */
  add(checkpoint: Checkpoint): Promise<Checkpoint>;
  close(): Promise<void>;
}

export const CHECKPOINT_FILE_NAME = 'checkpoints.log';

/**
 * One JSON checkpoint per line, sizes increasing, each written and fdatasync'ed before it is
 * served, so no client ever holds a checkpoint a restart forgets. Memory holds each line's tree
 * size and place (16 bytes), not the checkpoint: a checkpoint every 10 s for a year is about
 * 3.2 million lines, 1 GB of file and 50 MB of index.
 */
export class FileCheckpointStore implements CheckpointStore {
  private sizes = new Float64Array(1024);
  private offsets = new Float64Array(1024);
  private count = 0;
  private end = 0;
  private newest: Checkpoint | null = null;
  private writing: Promise<unknown> = Promise.resolve();

  private constructor(private readonly fh: FileHandle) {}

  /** Opens DIR/checkpoints.log, cutting a torn last line (a crash mid-write; it was never served). */
  static async open(dir: string): Promise<FileCheckpointStore> {
    const fh = await open(join(dir, CHECKPOINT_FILE_NAME), constants.O_RDWR | constants.O_CREAT, 0o644);
    const store = new FileCheckpointStore(fh);
    try {
      await store.load();
    } catch (error) {
      await fh.close();
      throw error;
    }
    return store;
  }

  private async load(): Promise<void> {
    const text = (await this.fh.readFile()).toString('utf8');
    let offset = 0;
    for (const line of text.split('\n')) {
      const bytes = Buffer.byteLength(line) + 1;
      if (offset + bytes > Buffer.byteLength(text)) break;
      const checkpoint = parseCheckpoint(line);
      if (!checkpoint || checkpoint.tree_size <= (this.newest?.tree_size ?? 0)) break;
      this.index(checkpoint.tree_size, offset);
      this.newest = checkpoint;
      offset += bytes;
    }
    this.end = offset;
    if (offset < Buffer.byteLength(text)) {
      await this.fh.truncate(offset);
      await this.fh.datasync();
    }
  }

  private index(size: number, offset: number): void {
    if (this.count === this.sizes.length) {
      const grow = (old: Float64Array) => {
        const grown = new Float64Array(old.length * 2);
        grown.set(old);
        return grown;
      };
      this.sizes = grow(this.sizes);
      this.offsets = grow(this.offsets);
    }
    this.sizes[this.count] = size;
    this.offsets[this.count] = offset;
    this.count++;
  }

  async latest(): Promise<Checkpoint | null> {
    return this.newest;
  }

  async atSize(treeSize: number): Promise<Checkpoint | null> {
    let [low, high] = [0, this.count - 1];
    while (low <= high) {
      const middle = (low + high) >>> 1;
      if (this.sizes[middle] === treeSize) return this.read(middle);
      if (this.sizes[middle] < treeSize) low = middle + 1;
      else high = middle - 1;
    }
    return null;
  }

  private async read(position: number): Promise<Checkpoint> {
    const start = this.offsets[position];
    const stop = position + 1 < this.count ? this.offsets[position + 1] : this.end;
    const { buffer, bytesRead } = await this.fh.read(Buffer.alloc(stop - start), 0, stop - start, start);
    const checkpoint = parseCheckpoint(buffer.toString('utf8', 0, bytesRead).trimEnd());
    if (!checkpoint) throw new Error(`${CHECKPOINT_FILE_NAME} is damaged at byte ${start}`);
    return checkpoint;
  }

  add(checkpoint: Checkpoint): Promise<Checkpoint> {
    const next = this.writing.then(() => this.write(checkpoint));
    this.writing = next.catch(() => undefined);
    return next;
  }

  private async write(checkpoint: Checkpoint): Promise<Checkpoint> {
    if (this.newest && checkpoint.tree_size <= this.newest.tree_size) {
      return (await this.atSize(checkpoint.tree_size)) ?? Promise.reject(new Error(`checkpoint ${checkpoint.tree_size} is older than the newest kept`));
    }
    const line = Buffer.from(`${JSON.stringify(checkpoint)}\n`, 'utf8');
    await this.fh.write(line, 0, line.length, this.end);
    await this.fh.datasync();
    this.index(checkpoint.tree_size, this.end);
    this.end += line.length;
    this.newest = checkpoint;
    return checkpoint;
  }

  async close(): Promise<void> {
    await this.writing;
    await this.fh.close();
  }
}

/**
 * The tree size of the newest checkpoint DIR/checkpoints.log holds, read without opening it for
 * writing (0 without one): records a signed checkpoint covers were acknowledged, so the file log
 * refuses to call them a torn tail (ARCHITECTURE.md "Damage is not a torn tail").
 */
export async function newestCheckpointSize(dir: string): Promise<number> {
  const text = await readFile(join(dir, CHECKPOINT_FILE_NAME), 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return '';
    throw error;
  });
  let newest = 0;
  for (const line of text.split('\n').slice(0, -1)) {
    const checkpoint = parseCheckpoint(line);
    if (!checkpoint || checkpoint.tree_size <= newest) break;
    newest = checkpoint.tree_size;
  }
  return newest;
}

function parseCheckpoint(text: string): Checkpoint | null {
  try {
    const value = JSON.parse(text) as Checkpoint;
    return Number.isSafeInteger(value?.tree_size) && typeof value.root_hash === 'string' ? value : null;
  } catch {
    return null;
  }
}

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
 * Keys under the audit prefix: `checkpoints` (hash tree_size -> JSON), `checkpoint-latest`
 * (JSON), `checkpoint-latest-size`, `checkpoint-key` (the key_id every instance must sign with);
 * the script reads `records` (redis-audit-log.ts) to check the checkpoint's last record.
 */
export class RedisCheckpointStore implements CheckpointStore {
  private constructor(private readonly client: Redis & AddCommand, private readonly prefix: string) {}

  /** Refuses to open when the shared chain's checkpoints are signed with another key. */
  static async connect(url: string, prefix: string, key: PublishedKey): Promise<RedisCheckpointStore> {
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2, commandTimeout: 5000 }) as Redis & AddCommand;
    client.on('error', () => undefined);
    client.defineCommand('tgCheckpointAdd', { lua: ADD_LUA, numberOfKeys: 4 });
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
