// What this instance last saw of the shared audit chain, kept under DATA_DIR so a store that forgot it is noticed.
import { open, readFile, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import { syncDirectory } from '../record/sync-directory.js';
import { ZERO_HASH, type AuditHead } from '../record/audit-log.js';
import { isSha256Hex } from '../record/sha256.js';

/** The remembered epoch and the highest head seen in it. */
export interface RememberedHead extends AuditHead {
  /** Id of the store's epoch marker; null before this instance ever saw a chain. */
  epoch: string | null;
}

const EMPTY: RememberedHead = { epoch: null, seq: 0, hash: ZERO_HASH };

/**
 * The highest head is kept in memory on every append and written to disk every
 * `flushMs` and at close, never on the hot path. A crash loses at most the last
 * interval, which only makes the check more lenient by that much: the memory never
 * claims more than was seen, so it never calls a healthy store lost. A new epoch is
 * written at once, because forgetting an epoch would let a replaced chain pass.
 */
export class HeadMemory {
  private current: RememberedHead;
  private dirty = false;
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  /** The last flush failure, shown by the status document; null once a flush succeeds. */
  flushError: string | null = null;

  private constructor(readonly file: string, remembered: RememberedHead, private readonly now: () => number) {
    this.current = remembered;
  }

  /**
   * A missing file is an instance that never saw a chain; an unreadable one stops the start (fail closed).
   * `now` (the service's clock) stamps each write's `saved_at`.
   */
  static async load(file: string, now: () => number): Promise<HeadMemory> {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new HeadMemory(file, { ...EMPTY }, now);
      throw error;
    }
    return new HeadMemory(file, parseRemembered(text, file), now);
  }

  get remembered(): Readonly<RememberedHead> {
    return this.current;
  }

  /** Raises the remembered head; a lower or equal seq changes nothing. */
  see(head: AuditHead): void {
    if (head.seq <= this.current.seq) return;
    this.current = { ...this.current, seq: head.seq, hash: head.hash };
    this.dirty = true;
  }

  /** Starts remembering a (new) epoch from `head`, durably before resolving. */
  async adopt(epoch: string, head: AuditHead): Promise<void> {
    this.current = { epoch, seq: head.seq, hash: head.hash };
    this.dirty = true;
    await this.flush();
    if (this.flushError) throw new Error(`could not record the audit epoch in ${this.file}: ${this.flushError}`);
  }

  /** Drops the remembered epoch (an operator abandoned it); adopt() then records the new one. */
  forget(): void {
    this.current = { ...EMPTY };
    this.dirty = true;
  }

  startFlushing(flushMs: number): void {
    this.timer ??= setInterval(() => void this.flush(), flushMs).unref();
  }

  /** Writes the remembered head when it changed: temp file, fdatasync, rename, directory fsync. */
  flush(): Promise<void> {
    this.writing = this.writing.then(() => this.write());
    return this.writing;
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }

  private async write(): Promise<void> {
    if (!this.dirty) return;
    this.dirty = false;
    const snapshot = this.current;
    const temp = `${this.file}.${process.pid}.tmp`;
    try {
      const handle = await open(temp, 'w');
      try {
        await handle.writeFile(`${JSON.stringify({ ...snapshot, saved_at: new Date(this.now()).toISOString() })}\n`);
        await handle.datasync();
      } finally {
        await handle.close();
      }
      await rename(temp, this.file);
      await syncDirectory(dirname(this.file));
      this.flushError = null;
    } catch (error) {
      // Kept dirty so the next interval retries; the status document reports it meanwhile.
      this.dirty = true;
      this.flushError = (error as Error).message;
    }
  }
}


function parseRemembered(text: string, file: string): RememberedHead {
  try {
    const value = JSON.parse(text) as Partial<RememberedHead>;
    const epochOk = value.epoch === null || typeof value.epoch === 'string';
    const seqOk = Number.isSafeInteger(value.seq) && (value.seq as number) >= 0;
    const hashOk = typeof value.hash === 'string' && isSha256Hex(value.hash);
    if (epochOk && seqOk && hashOk) return { epoch: value.epoch as string | null, seq: value.seq as number, hash: value.hash as string };
  } catch {
    // Reported below with the file name.
  }
  throw new Error(`${file} is not a remembered audit head; restore it, or delete it only if this instance should trust the store as it is`);
}
