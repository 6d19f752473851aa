// One service per DATA_DIR, whatever its backends: an OS advisory lock (flock) on DATA_DIR/data-dir.lock, taken
// before anything under DATA_DIR is written (epoch.json, keys, the file audit log, the LMDB store), naming its holder
// (ARCHITECTURE.md "One writer per DATA_DIR").
import { closeSync, fstatSync, ftruncateSync, openSync, readFileSync, statSync, unlinkSync, writeSync, constants } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { tryExclusiveLock } from '../store/flock.js';

export const LOCK_FILE_NAME = 'data-dir.lock';

/** Another live process writes this DATA_DIR; a second writer would fork the audit chain and share the store. */
export class DirectoryLocked extends Error {
  override name = 'DirectoryLocked';
}

export interface DirLock {
  readonly path: string;
  /** Removes the lock file and lets go of the lock; safe to call more than once. */
  release(): Promise<void>;
}


/** What the holder writes into its lock file, so a refused start can say who holds it. */
interface Holder {
  host: string;
  pid: number;
  started_at: string;
}

/**
 * Takes DATA_DIR/data-dir.lock with flock(LOCK_EX | LOCK_NB). The kernel keeps the lock while the holder
 * runs, whatever PID namespace it is in (two containers on one volume, each service PID 1),
 * and drops it when the holder dies (SIGKILL, crash), so a stale lock file is simply taken:
 * nobody guesses from a pid. A second open in this process is refused too, since flock locks
 * belong to one open of the file. Synchronous: it is a handful of system calls at start.
 */
export function lockDataDir(dir: string): DirLock {
  const path = join(dir, LOCK_FILE_NAME);
  // A releasing holder unlinks the file while holding the lock: whoever locked the unlinked file retries on the new one.
  for (let attempt = 0; attempt < 5; attempt++) {
    const fd = openSync(path, constants.O_RDWR | constants.O_CREAT, 0o644);
    let taken: boolean;
    try {
      taken = tryExclusiveLock(fd);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    if (!taken) {
      closeSync(fd);
      throw new DirectoryLocked(
        `${dir} is in use by ${describeHolder(path)} (lock file ${path}); two services on one DATA_DIR would fork the audit chain and share its store. ` +
        'Stop that service, or give this one its own DATA_DIR. The lock is the kernel\'s: it goes with its holder, so there is nothing to delete by hand.',
      );
    }
    if (sameFile(fd, path)) return held(fd, path);
    closeSync(fd);
  }
  throw new DirectoryLocked(`could not take ${path}: it keeps being replaced while it is taken`);
}

function sameFile(fd: number, path: string): boolean {
  try {
    return fstatSync(fd).ino === statSync(path).ino;
  } catch {
    return false;
  }
}

function held(fd: number, path: string): DirLock {
  const holder: Holder = { host: hostname(), pid: process.pid, started_at: new Date().toISOString() };
  nameHolder(fd, holder);
  let released = false;
  return {
    path,
    async release() {
      if (released) return;
      released = true;
      // Unlinked while still held, then closed: see the retry in lockDataDir.
      try {
        unlinkSync(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      } finally {
        closeSync(fd);
      }
    },
  };
}

/**
 * Writes the holder into its lock file. A disk with no room leaves the file empty: the lock is
 * held all the same, and a start on a full disk waits for room rather than exits
 * (ARCHITECTURE.md "A full disk at start"); a refused second start then names no holder.
 */
function nameHolder(fd: number, holder: Holder): void {
  try {
    ftruncateSync(fd, 0);
    writeSync(fd, `${JSON.stringify(holder)}\n`, 0);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOSPC' && code !== 'EDQUOT') throw error;
    ftruncateSync(fd, 0);
  }
}

/** The holder as it wrote itself: host, pid (in its own PID namespace) and start time; or what the file holds. */
function describeHolder(path: string): string {
  let text = '';
  try {
    text = readFileSync(path, 'utf8').trim();
    const holder = JSON.parse(text) as Partial<Holder>;
    if (typeof holder.pid === 'number') return `the service on host ${holder.host}, pid ${holder.pid}, started at ${holder.started_at}`;
  } catch {
    // an older service's bare pid, or a holder that has not written itself yet
  }
  return text === '' ? 'another process (it has not named itself yet, or its disk had no room for its name)' : `process ${text}`;
}
