// The file backend's signed checkpoints: checkpoints.log beside audit.log (ARCHITECTURE.md "Checkpoints and proofs").
import { createHash, type Hash } from 'node:crypto';
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { checkCheckpoint, shapeFault, type Checkpoint, type PublishedKey } from '../proof/checkpoint.js';
import { parseCheckpoint, type CheckpointStore } from '../proof/checkpoint-store.js';
import { checkpointDamage, cutInsideMark, judgeCheckpointLine, type DamagedLine } from './checkpoint-lines.js';
import { cutAt, fileLines, lastLineBefore, lastNewlineBefore, readAt, writeAllAt } from './file-lines.js';
import type { CheckpointsMarks } from './file-audit-log.js';
import type { CheckpointsMark } from './log-index.js';
import { StartProgress, type StartReports } from './start-progress.js';

export const CHECKPOINT_FILE_NAME = 'checkpoints.log';

const QUIET: StartReports = { report: () => undefined, now: Date.now };

/**
 * One JSON checkpoint per line, sizes increasing, each written and fdatasync'ed before it is
 * served, so no client ever holds a checkpoint a restart forgets. Memory holds each line's tree
 * size and place (16 bytes), not the checkpoint: a checkpoint every 10 s for a year is about
 * 3.2 million lines, 1 GB of file and 50 MB of index. Every line is checked as it is read at open
 * (its signature, and that it grows past the one before); a damaged one is named by `damage()` and
 * stops the store, and nothing after it is served or written. A signature is checked once: the index
 * keeps a mark of the bytes already checked (their length and SHA-256), and a start whose file still
 * begins with exactly those bytes checks only the sizes of the lines they hold and the signatures of
 * the lines after them. A changed byte anywhere in the marked part changes its hash, and the start
 * then checks every line again.
 */
export class FileCheckpointStore implements CheckpointStore {
  /** Each line's tree size and byte offset, in file order (plain arrays of numbers, 8 bytes an element). */
  private readonly sizes: number[] = [];
  private readonly offsets: number[] = [];
  private end = 0;
  private newest: Checkpoint | null = null;
  private writing: Promise<unknown> = Promise.resolve();
  private damaged: string | null = null;
  /** SHA-256 of the file's sound lines so far, for the mark of what is checked. */
  private prefix: Hash = createHash('sha256');
  /** Lines read at open whose signature was checked, and those taken as checked inside the index's mark. */
  private signaturesChecked = 0;
  private linesMarked = 0;
  /** The mark's end when the file ends inside a line it marked (see cutTornWrite), else null. */
  private cutMarkEnd: number | null = null;

  private constructor(
    private readonly fh: FileHandle,
    private readonly path: string,
    private readonly key: PublishedKey,
    private readonly marks: CheckpointsMarks | null,
    private readonly options: StartReports,
  ) {}

  /** Opens DIR/checkpoints.log, cutting a torn last line (a crash mid-write; it was never served). */
  static async open(
    dir: string, key: PublishedKey, marks: CheckpointsMarks | null = null, options: StartReports = QUIET,
  ): Promise<FileCheckpointStore> {
    const path = join(dir, CHECKPOINT_FILE_NAME);
    const fh = await open(path, constants.O_RDWR | constants.O_CREAT, 0o644);
    const store = new FileCheckpointStore(fh, path, key, marks, options);
    try {
      const began = options.now();
      const mark = store.usableMark();
      await store.cutTornWrite(mark);
      if (!(await store.load(mark)) && mark !== null) {
        store.reset();
        await store.load(null);
      }
      store.remember();
      store.reportOpen(options.now() - began, mark !== null);
    } catch (error) {
      await fh.close();
      throw error;
    }
    return store;
  }

  /** The index's mark, if it was made for this key; any doubt means every line is checked. */
  private usableMark(): CheckpointsMark | null {
    try {
      const mark = this.marks?.get() ?? null;
      return mark !== null && mark.keyId === this.key.key_id && mark.end > 0 ? mark : null;
    } catch {
      return null;
    }
  }

  /**
   * Cuts a last line that no newline ends: a write a crash cut short, never served. Not when it begins inside the
   * marked bytes: those were whole when checked, so the line is damage, kept as found and named by load(); a file
   * cut at a line's end below the mark is only checked again in full (ARCHITECTURE.md "Checkpoints and proofs").
   */
  private async cutTornWrite(mark: CheckpointsMark | null): Promise<void> {
    const { size } = await this.fh.stat();
    const tornFrom = (await lastNewlineBefore(this.fh, size)) + 1;
    if (mark !== null && tornFrom < size && tornFrom < mark.end) this.cutMarkEnd = mark.end;
    else await cutAt(this.fh, tornFrom, size);
  }

  /**
   * Marks what is checked: the sound lines read or written (none in a new file, so the mark of a file moved aside
   * does not outlive it). Best effort: a mark lost costs the next start a full check.
   */
  private remember(): void {
    if (this.marks === null || this.damaged !== null) return;
    try {
      this.marks.set({ end: this.end, sha256: this.prefix.copy().digest('hex'), keyId: this.key.key_id });
    } catch {
      // The index's disk refused the write; the mark stays where it was, which only makes a start check more.
    }
  }

  /** The start's one line on this file: how many signatures it checked and how many the mark spared (ARCHITECTURE.md "Checkpoints and proofs"). */
  private reportOpen(ms: number, hadMark: boolean): void {
    const lines = this.signaturesChecked + this.linesMarked;
    if (lines === 0 && this.damaged === null) return;
    const why = this.linesMarked > 0 ? '' : hadMark ? ' (the index\'s mark no longer matched the file: every line checked)' : ' (no mark in the index: every line checked)';
    this.options.report(`audit: ${this.path}: checked the signatures of ${this.signaturesChecked} checkpoint lines and took ` +
      `${this.linesMarked} as checked by the index's mark, in ${ms} ms${why}`);
  }

  private reset(): void {
    this.signaturesChecked = 0;
    this.linesMarked = 0;
    this.sizes.length = 0;
    this.offsets.length = 0;
    this.end = 0;
    this.newest = null;
    this.damaged = null;
    this.prefix = createHash('sha256');
  }

  /** Why the file cannot be served from (its first damaged line, and what to do), or null while it is sound. */
  damage(): string | null {
    return this.damaged;
  }

  /**
   * One pass over the file, a block at a time: linear in its length, memory in its line count. Lines inside `mark`
   * have their signatures taken as checked; false when the file does not begin with the marked bytes, and nothing
   * read may then be trusted (the caller checks every line again).
   */
  private async load(mark: CheckpointsMark | null): Promise<boolean> {
    const progress = new StartProgress(
      this.options.now, this.options.report, (await this.fh.stat()).size,
      (read) => `audit: checking ${this.path}: ${read}, ${this.signaturesChecked} signatures checked`,
    );
    for await (const line of fileLines(this.fh)) {
      progress.at(this.signaturesChecked + this.linesMarked, line.offset);
      if (mark !== null && line.offset === mark.end && !this.matches(mark)) return false;
      const lineEnd = line.offset + line.bytes.length + 1;
      // A mark that ends inside a line was not made by this store: trust none of it.
      if (mark !== null && line.offset < mark.end && lineEnd > mark.end) return false;
      const text = line.bytes.toString('utf8');
      const marked = mark !== null && lineEnd <= mark.end;
      const judged = !line.ended && this.cutMarkEnd !== null
        ? { fault: cutInsideMark(this.cutMarkEnd) }
        : judgeCheckpointLine(text, this.newest?.tree_size ?? 0, marked ? null : this.key);
      if ('fault' in judged) {
        if (marked) return false;
        this.markDamaged({ number: line.number, offset: line.offset, fault: judged.fault });
        return true;
      }
      if (marked) this.linesMarked++;
      else this.signaturesChecked++;
      this.index(judged.checkpoint.tree_size, line.offset);
      this.newest = judged.checkpoint;
      this.end = lineEnd;
      this.prefix.update(line.bytes).update(NEWLINE);
    }
    return mark === null || this.end > mark.end || (this.end === mark.end && this.matches(mark));
  }

  private matches(mark: CheckpointsMark): boolean {
    return this.end === mark.end && this.prefix.copy().digest('hex') === mark.sha256;
  }

  private markDamaged(line: DamagedLine): void {
    this.damaged ??= checkpointDamage(this.path, line);
  }

  private index(size: number, offset: number): void {
    this.sizes.push(size);
    this.offsets.push(offset);
  }

  async latest(): Promise<Checkpoint | null> {
    return this.newest;
  }

  async atSize(treeSize: number): Promise<Checkpoint | null> {
    let [low, high] = [0, this.sizes.length - 1];
    while (low <= high) {
      const middle = (low + high) >>> 1;
      if (this.sizes[middle] === treeSize) return this.read(middle);
      if (this.sizes[middle] < treeSize) low = middle + 1;
      else high = middle - 1;
    }
    return null;
  }

  sizeAfter(size: number): number | null {
    let [low, high] = [0, this.sizes.length];
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.sizes[middle] <= size) low = middle + 1;
      else high = middle;
    }
    return low < this.sizes.length ? this.sizes[low] : null;
  }

  private async read(position: number): Promise<Checkpoint> {
    const start = this.offsets[position];
    const stop = position + 1 < this.sizes.length ? this.offsets[position + 1] : this.end;
    // Checked again as it is served: the file may have been changed since open.
    const checkpoint = parseCheckpoint((await readAt(this.fh, start, stop - start)).toString('utf8').trimEnd());
    const fault = checkpoint === null ? 'it is not a checkpoint' : checkCheckpoint(checkpoint, this.key);
    if (checkpoint === null || fault !== null || checkpoint.tree_size !== this.sizes[position]) {
      this.markDamaged({ number: position + 1, offset: start, fault: fault ?? `it no longer holds checkpoint ${this.sizes[position]}` });
      throw new Error(this.damaged!);
    }
    return checkpoint;
  }

  add(checkpoint: Checkpoint): Promise<Checkpoint> {
    const next = this.writing.then(() => this.write(checkpoint));
    this.writing = next.catch(() => undefined);
    return next;
  }

  private async write(checkpoint: Checkpoint): Promise<Checkpoint> {
    if (this.damaged) throw new Error(this.damaged);
    if (this.newest && checkpoint.tree_size <= this.newest.tree_size) {
      return (await this.atSize(checkpoint.tree_size)) ?? Promise.reject(new Error(`checkpoint ${checkpoint.tree_size} is older than the newest kept`));
    }
    const line = Buffer.from(`${JSON.stringify(checkpoint)}\n`, 'utf8');
    await writeAllAt(this.fh, line, this.end);
    await this.fh.datasync();
    this.index(checkpoint.tree_size, this.end);
    this.end += line.length;
    this.newest = checkpoint;
    this.prefix.update(line);
    this.remember();
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
 * refuses to call them a torn tail (ARCHITECTURE.md "Damage is not a torn tail"). Read from the end:
 * the last newline-terminated line of a checkpoint's shape (one whose tree_size a changed byte made
 * differ from its last_seq does not vouch), so a start reads a few lines, not the file.
 */
export async function newestCheckpointSize(dir: string): Promise<number> {
  const fh = await open(join(dir, CHECKPOINT_FILE_NAME), 'r').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  if (fh === null) return 0;
  try {
    let line = await lastLineBefore(fh, (await fh.stat()).size);
    for (let tries = 0; line !== null && tries < NEWEST_LINES_TRIED; tries++) {
      const value = parseCheckpoint(line.bytes.toString('utf8'));
      if (value !== null && shapeFault(value) === null) return value.tree_size;
      line = await lastLineBefore(fh, line.start);
    }
    return 0;
  } finally {
    await fh.close();
  }
}

const NEWLINE = Buffer.from('\n');

/** Damaged lines at the end past which the newest checkpoint is not looked for (the store names the damage). */
const NEWEST_LINES_TRIED = 64;
