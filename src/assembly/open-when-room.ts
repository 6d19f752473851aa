// Opens what the service keeps under DATA_DIR on a disk that may be full: a start that finds no room listens, refuses
// evaluations, says why, and tries the opening again by itself until the disk has room (ARCHITECTURE.md "A full disk at start").
import { statfsSync } from 'node:fs';
import type { Logger } from '../catalogue/failures.js';

/** Waits between attempts: short at first, then every few seconds for as long as the disk stays full. */
const RETRY_DELAYS_MS = [250, 500, 1_000, 2_000, 4_000];

/** Below this much room an I/O error is a full disk: LMDB reports a write a full disk cut short as EIO (src/store/lmdb-write-health.ts). */
const FULL_BELOW_BYTES = 1024 * 1024;

const NO_ROOM_WORDS = /ENOSPC|EDQUOT|No space left on device|Disk quota exceeded/;
const IO_ERROR_WORDS = /EIO|Input\/output error|short write/;

/** Room left for this process on the filesystem of `path`, or null when it cannot be read. */
export function freeBytes(path: string): number | null {
  try {
    const fs = statfsSync(path);
    return fs.bavail * fs.bsize;
  } catch {
    return null;
  }
}

/**
 * Whether `error`, or a cause it wraps, is a disk without room: ENOSPC, EDQUOT, or an I/O error while
 * the disk of `dataDir` has (almost) none. A worker thread's error arrives as its words only, so words count too.
 */
export function noRoom(error: unknown, dataDir: string): boolean {
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    const code = (current as NodeJS.ErrnoException).code;
    const words = current instanceof Error ? current.message : String(current);
    if (code === 'ENOSPC' || code === 'EDQUOT' || NO_ROOM_WORDS.test(words)) return true;
    if ((code === 'EIO' || IO_ERROR_WORDS.test(words)) && (freeBytes(dataDir) ?? Infinity) < FULL_BELOW_BYTES) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** The innermost error `error` wraps (the system's own words), and the first path named on the way. */
function rootCause(error: unknown): { words: string; path: string | null } {
  let current: unknown = error;
  let path: string | null = null;
  for (let depth = 0; depth < 5; depth++) {
    path ??= (current as NodeJS.ErrnoException | null)?.path ?? null;
    const inner = (current as { cause?: unknown } | null)?.cause;
    if (inner === undefined || inner === null) break;
    current = inner;
  }
  return { words: current instanceof Error ? current.message : String(current), path };
}

/** What a full disk at start stopped, in the operator's words: where, the room there, the system's words and what brings the service back. */
function waitingReason(what: string, dataDir: string, error: unknown): string {
  const { words, path } = rootCause(error);
  return `${what} could not open: the disk is full at ${path ?? dataDir} (${freeBytes(dataDir) ?? 'unknown'} bytes free; ${words}). ` +
    'Free space on that disk: the service opens them by itself, tried again every few seconds, and then takes evaluations, with no restart';
}

/** What is opened as one: closing it closes everything it opened. */
export interface Openable {
  close(): Promise<void>;
}

/**
 * One opening step (the audit backend, the store and what joins them) that may wait for room. The first
 * attempt runs at start: any failure but a full disk is thrown, so a damaged file or a mismatch still
 * refuses the start. A full disk leaves it waiting: current() is null, problem() says why, and the step
 * runs again after a backoff until it opens. A failure other than a full disk on a later attempt stops
 * the retries and stays the problem, since the process is up: it fails closed until a restart.
 */
export class OpenWhenRoom<T extends Openable> {
  private value: T | null = null;
  private problemText: string | null = null;
  private attempts = 0;
  private timer: NodeJS.Timeout | undefined;
  private attempt: Promise<void> = Promise.resolve();
  private closed = false;

  private constructor(private readonly what: string, private readonly open: () => Promise<T>, private readonly dataDir: string, private readonly log: Logger) {}

  static async start<T extends Openable>(what: string, open: () => Promise<T>, dataDir: string, log: Logger): Promise<OpenWhenRoom<T>> {
    const opening = new OpenWhenRoom(what, open, dataDir, log);
    try {
      opening.value = await open();
    } catch (error) {
      if (!noRoom(error, dataDir)) throw error;
      opening.waitForRoom(error);
    }
    return opening;
  }

  /** What was opened; null while waiting. */
  current(): T | null {
    return this.value;
  }

  /** Null once open; else why not yet, for /status.json and the refusals meanwhile. */
  problem(): string | null {
    return this.value === null ? this.problemText : null;
  }

  /** Stops trying, waits for an attempt under way, and closes what was opened. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.attempt;
    await this.value?.close();
  }

  private waitForRoom(error: unknown): void {
    const reason = waitingReason(this.what, this.dataDir, error);
    if (this.attempts === 0) this.log(reason, 'error');
    this.problemText = reason;
    const delay = RETRY_DELAYS_MS[Math.min(this.attempts, RETRY_DELAYS_MS.length - 1)];
    this.attempts++;
    // retry() reports its own outcome; nothing it throws may go unhandled in a timer.
    this.timer = setTimeout(() => (this.attempt = this.retry().catch(() => undefined)), delay);
    this.timer.unref();
  }

  private async retry(): Promise<void> {
    let value: T;
    try {
      value = await this.open();
    } catch (error) {
      if (this.closed) return;
      if (noRoom(error, this.dataDir)) return this.waitForRoom(error);
      this.problemText = `${this.what} could not open once the disk had room: ${(error as Error).message}; mend that and restart the service`;
      this.log(this.problemText, 'error');
      return;
    }
    if (this.closed) return value.close();
    this.value = value;
    this.log(`${this.what} opened at attempt ${this.attempts + 1}: the disk under ${this.dataDir} has room again, and evaluations are taken`);
  }
}
