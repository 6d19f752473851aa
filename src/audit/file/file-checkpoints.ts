// The file backend's signed checkpoints: checkpoints.log beside audit.log (ARCHITECTURE.md "Checkpoints and proofs").
import { constants } from 'node:fs';
import { open, readFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Checkpoint } from '../proof/checkpoint.js';
import { parseCheckpoint, type CheckpointStore } from '../proof/checkpoint-store.js';

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
