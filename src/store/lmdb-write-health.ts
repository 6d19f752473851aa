// Whether the LMDB store's writes land, and the probe that finds out by itself once they fail (ARCHITECTURE.md "Embedded store").
import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { StoreFault } from './store-unavailable.js';

/** How often a store whose last write failed tries a write of its own. */
const PROBE_EVERY_MS = 1_000;

/** Below this much free space a failed write is put down to a full disk. */
const FULL_BELOW_BYTES = 1024 * 1024;

/**
 * What a failed write failed on, in the operator's words. LMDB reports a write that a full disk
 * cut short as EIO ("short write, filesystem full?" in its mdb_page_flush), not ENOSPC, so an I/O
 * error on a disk with (almost) no room left is named a full disk, with the room there is.
 */
function failureOf(file: string, cause: unknown): string {
  const why = cause instanceof Error ? cause.message : String(cause);
  const free = freeBytes(dirname(file));
  if (free === null) return why;
  if (free < FULL_BELOW_BYTES && !why.startsWith('No space left on device')) {
    return `No space left on device (${free} bytes free on its disk; LMDB reported ${why})`;
  }
  return `${why} (${free} bytes free on its disk)`;
}

function freeBytes(dir: string): number | null {
  try {
    const fs = statfsSync(dir);
    return fs.bavail * fs.bsize;
  } catch {
    return null;
  }
}

/** Why the store's writes fail now: the file, the cause, and what brings the writes back. */
export class StoreWriteFault extends StoreFault {
  constructor(file: string, cause: unknown) {
    const why = failureOf(file, cause);
    super(`writes to ${file} fail: ${why}; free space on its disk (or mend the I/O fault): the store takes writes again by itself, tried every second`, { cause });
    this.name = 'StoreWriteFault';
  }
}

/**
 * A failed write starts a probe: once a second a write of its own, until one lands. Each LMDB
 * commit is atomic, so a failed one left nothing behind and the next one needs no repair; the
 * probe only makes the store report itself healthy again when no request writes meanwhile.
 */
export class WriteHealth {
  private fault: StoreWriteFault | null = null;
  private timer: NodeJS.Timeout | undefined;
  private probing = false;

  constructor(private readonly file: string, private readonly probe: () => Promise<void>) {}

  /** Why writes fail now, or null once the latest write landed. */
  problem(): StoreWriteFault | null {
    return this.fault;
  }

  /** Records the cause of a failed write; returns what the caller is told. */
  failed(cause: unknown): StoreWriteFault {
    this.fault = new StoreWriteFault(this.file, cause);
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.tryProbe(), PROBE_EVERY_MS);
      // The probe must never keep the process alive.
      this.timer.unref();
    }
    return this.fault;
  }

  landed(): void {
    this.fault = null;
    this.stop();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private tryProbe(): void {
    if (this.probing) return;
    this.probing = true;
    // The write reports its own outcome through failed() or landed().
    this.probe().catch(() => undefined).finally(() => (this.probing = false));
  }
}
