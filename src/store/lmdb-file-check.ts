// Refuses a damaged LMDB file before the service maps it, with the file and the two ways out (ARCHITECTURE.md "Embedded store").
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CHECK_SCRIPT = fileURLToPath(new URL('../../workers/lmdb-check.js', import.meta.url));

/** The store file cannot be used; the message names it, what was found and what the operator does. */
export class StoreDamagedError extends Error {
  constructor(file: string, found: string) {
    super(
      `the store file ${file} is damaged: ${found}. LMDB keeps no checksums, and a damaged file ends the service by a signal ` +
      `when read, so it was not opened. Restore ${file} from a copy (the service stopped), or move it aside ` +
      `(mv ${file} ${file}.damaged) to start with an empty store, which forgets the policies, revocations, danger flags, ` +
      'used payments and request_ids it held',
    );
    this.name = 'StoreDamagedError';
  }
}

/**
 * Walks the store in `dir` in a child process (workers/lmdb-check.ts) and throws StoreDamagedError
 * when the child dies by a signal or LMDB refuses the file. No file yet: nothing to check.
 */
export async function checkStoreFile(dir: string): Promise<void> {
  const file = join(dir, 'data.mdb');
  if (!existsSync(file)) return;
  const found = await new Promise<string | null>((resolve) => {
    execFile(process.execPath, [CHECK_SCRIPT, dir], (error, _stdout, stderr) => {
      if (error === null) resolve(null);
      else if (error.signal) resolve(`reading it ended the check with ${error.signal}`);
      else resolve(`LMDB refused it (${stderr.trim() || `the check exited with ${error.code}`})`);
    });
  });
  if (found !== null) throw new StoreDamagedError(file, found);
}
