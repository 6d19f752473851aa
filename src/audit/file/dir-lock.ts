// One writer per audit directory: a lock file that names the process holding it.
import { open, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';

export const LOCK_FILE_NAME = 'audit.lock';

/** Another live process writes this directory; a second writer would fork the chain. */
export class DirectoryLocked extends Error {
  override name = 'DirectoryLocked';
}

export interface DirLock {
  readonly path: string;
  /** Removes the lock file; safe to call more than once. */
  release(): Promise<void>;
}

/** Lock paths this process holds, so a second open in the same process is refused too. */
const heldHere = new Set<string>();

/**
 * Takes DIR/audit.lock with an exclusive create. A lock left by a process that no
 * longer runs (a crash, SIGKILL) is stale and taken over. Two services started at
 * the same instant over the same stale lock could both take it; that window is a
 * start-up race only, and a running holder is always detected.
 */
export async function lockDirectory(dir: string): Promise<DirLock> {
  const path = join(dir, LOCK_FILE_NAME);
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await tryCreate(path)) return held(path);
    const owner = await readOwner(path);
    if (owner !== null && isHeld(owner, path)) {
      throw new DirectoryLocked(
        `${dir} is in use by process ${owner} (lock file ${path}); two writers would fork the audit chain. ` +
        'Stop that process, give this one its own DATA_DIR, or delete the lock file if that process is not this service.',
      );
    }
    await unlink(path).catch(ignoreMissing);
  }
  throw new DirectoryLocked(`could not take ${path}: it keeps reappearing`);
}

async function tryCreate(path: string): Promise<boolean> {
  try {
    const handle = await open(path, 'wx', 0o644);
    try {
      await handle.writeFile(`${process.pid}\n`);
    } finally {
      await handle.close();
    }
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** The pid in the lock file; null when it is gone or unreadable (a torn write counts as stale). */
async function readOwner(path: string): Promise<number | null> {
  const text = await readFile(path, 'utf8').catch(() => null);
  const pid = text === null ? NaN : Number(text.trim());
  return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
}

/** Our own pid counts only if this process really holds it (after a restart a pid can come back). */
function isHeld(pid: number, path: string): boolean {
  if (pid === process.pid) return heldHere.has(path);
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else, so it is alive.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function held(path: string): DirLock {
  heldHere.add(path);
  let released = false;
  return {
    path,
    async release() {
      if (released) return;
      released = true;
      heldHere.delete(path);
      await unlink(path).catch(ignoreMissing);
    },
  };
}

function ignoreMissing(error: NodeJS.ErrnoException): void {
  if (error.code !== 'ENOENT') throw error;
}
