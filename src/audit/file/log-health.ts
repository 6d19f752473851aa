// Whether the file audit log may take an append now, watched while it runs (ARCHITECTURE.md "A log that heals").
//
// Two kinds of trouble. The file is not the one this process writes (replaced, moved, truncated,
// grown by someone else): appends stop until a restart, whose open judges the file. A write or
// fsync failed (a full disk, EIO): appends stop, and once a second the log tries to heal, which
// first re-establishes the true end of the file and that it ends with the last acknowledged record.
import { fstatSync, statSync } from 'node:fs';
import { stat, statfs, type FileHandle } from 'node:fs/promises';

/** How often the file at the path and behind the handle are compared with what was written. */
const WATCH_MS = 250;
const SPACE_EVERY_MS = 1_000;
const HEAL_EVERY_MS = 1_000;
/** Room for a group of records; with less, an append would fail, so the log says the disk is full. */
export const MIN_FREE_BYTES = 64 * 1024;

export type FailureKind = 'io' | 'moved';

export interface FileFacts {
  ino: bigint;
  size: number;
}

/**
 * What the service had written around one look at the file: `before` when the look began (the file
 * is at least that long, since writes only add), `after` when it ended, and whether a write of its
 * own was under way at any moment of it (the file may then be longer than `after`).
 */
export interface Written {
  before: number;
  after: number;
  writing: boolean;
}

/** Pure: what is wrong when the file at the path or behind the handle is not the one this process wrote. */
export function fileMismatch(ino: bigint, written: Written, atPath: FileFacts | null, behindHandle: FileFacts): string | null {
  if (atPath === null) return 'audit.log was moved or deleted from under the service';
  if (atPath.ino !== ino || behindHandle.ino !== ino) return 'audit.log was replaced: another file now has its name';
  if (behindHandle.size < written.before) return `audit.log was truncated to ${behindHandle.size} bytes under the service, which wrote ${written.before}`;
  if (!written.writing && behindHandle.size > written.after) return `audit.log grew by ${behindHandle.size - written.after} bytes the service did not write`;
  return null;
}

/** Pure: the reason a filesystem with `freeBytes` available cannot take a record, or null. */
export function spaceProblem(freeBytes: number): string | null {
  return freeBytes < MIN_FREE_BYTES ? `the audit log's disk is full (${freeBytes} bytes free)` : null;
}

export interface HealthHooks {
  /** Bytes written and acknowledged. */
  end(): number;
  /** A group's write is under way, so the file may be longer than `end`. */
  writing(): boolean;
  /** Re-establishes the end and the last record and restarts what failed; throws while it cannot. */
  heal(): Promise<void>;
  /** Told when the log fails or heals, for the service log. */
  report(line: string): void;
}

export class LogHealth {
  private failure: { kind: FailureKind; reason: string } | undefined;
  private noSpace: string | null = null;
  private spaceAt = 0;
  private healAt = 0;
  private busy = false;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly path: string, private readonly fh: FileHandle, readonly ino: bigint, private readonly hooks: HealthHooks) {
    this.timer = setInterval(() => void this.tick(), WATCH_MS);
    this.timer.unref();
  }

  /** Null when an append can be taken now, else why not (the AuditLog contract's `readiness`). */
  readiness(): string | null {
    if (!this.failure) return this.noSpace;
    const stopped = `audit log: appends stopped: ${this.failure.reason}`;
    return this.noSpace ? `${stopped}; ${this.noSpace}` : stopped;
  }

  /** The error an append gets while the log has failed. */
  error(): Error | undefined {
    return this.failure ? new Error(`audit log unusable: ${this.failure.reason}`) : undefined;
  }

  /** The file is not the one this process wrote: nothing may be written to it, not even a repair. */
  get moved(): boolean {
    return this.failure?.kind === 'moved';
  }

  fail(kind: FailureKind, reason: string): Error {
    // A file that is not ours outranks a write error: healing must never write to it.
    if (!this.failure || (kind === 'moved' && this.failure.kind === 'io')) {
      this.failure = { kind, reason };
      this.hooks.report(`audit: appends stopped: ${reason}${kind === 'io' ? '; retrying every second' : '; restart once the file is restored'}`);
    }
    return this.error() as Error;
  }

  /** Before each group's write: appends never go anywhere but the true end of the file this process writes. */
  checkBeforeWrite(): void {
    // Synchronous: two stats cost a few microseconds, less than two trips through libuv's pool per group,
    // and nothing of ours can write between them and the write that follows.
    // A handle closed under the log (its close on a failure) has fd -1: say so, as its own stat would.
    if (this.fh.fd < 0) throw new Error('file closed');
    const end = this.hooks.end();
    const atPath = statSync(this.path, { bigint: true, throwIfNoEntry: false });
    const behind = fstatSync(this.fh.fd, { bigint: true });
    const facts = (found: { ino: bigint; size: bigint }) => ({ ino: found.ino, size: Number(found.size) });
    const problem = fileMismatch(this.ino, { before: end, after: end, writing: false }, atPath ? facts(atPath) : null, facts(behind));
    if (problem) throw this.fail('moved', problem);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /**
   * The stats are awaited, and the log's own writes go on meanwhile: the file is held to what was
   * written when the look began (for a truncation) and when it ended (for growth), and counts as
   * being written when a write was under way at either end or completed in between.
   */
  private async compare(): Promise<string | null> {
    const before = this.hooks.end();
    const writingBefore = this.hooks.writing();
    const [atPath, behind] = await Promise.all([stat(this.path, { bigint: true }).catch(() => null), this.fh.stat({ bigint: true })]);
    const after = this.hooks.end();
    const writing = writingBefore || this.hooks.writing() || after !== before;
    const facts = (found: { ino: bigint; size: bigint }) => ({ ino: found.ino, size: Number(found.size) });
    return fileMismatch(this.ino, { before, after, writing }, atPath && facts(atPath), facts(behind));
  }

  private async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      await this.checkSpace();
      if (!this.failure) {
        const problem = await this.compare();
        if (problem) this.fail('moved', problem);
      } else if (this.failure.kind === 'io' && Date.now() - this.healAt >= HEAL_EVERY_MS) {
        // Room read now, not up to a second ago: a reading from before the disk filled resumed appends on a
        // full disk, and a paid call settled in that gap (ARCHITECTURE.md "A log that heals").
        await this.checkSpace(true);
        if (!this.noSpace) await this.tryHeal();
      }
    } catch {
      // A closed handle (the log is closing) or a failed stat: the next tick looks again.
    } finally {
      this.busy = false;
    }
  }

  private async tryHeal(): Promise<void> {
    this.healAt = Date.now();
    const problem = await this.compare();
    if (problem) {
      this.fail('moved', problem);
      return;
    }
    await this.hooks.heal();
    const was = this.failure?.reason;
    this.failure = undefined;
    this.hooks.report(`audit: appends resumed (they stopped: ${was})`);
  }

  private async checkSpace(now = false): Promise<void> {
    if (!now && Date.now() - this.spaceAt < SPACE_EVERY_MS) return;
    this.spaceAt = Date.now();
    const found = await statfs(this.path).catch(() => null);
    this.noSpace = found ? spaceProblem(found.bavail * found.bsize) : null;
  }
}
