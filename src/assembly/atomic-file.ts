// Writes a file under DATA_DIR whole or not at all, so a full disk or a crash never leaves half of one (ARCHITECTURE.md "A full disk at start").
import { open, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { syncDirectory } from '../audit/record/sync-directory.js';

/**
 * Temp file, fsync, rename, then the folder fsynced so the rename itself survives a crash. A failed write
 * (ENOSPC on a full disk) removes its temp file and leaves `path` as it was. Callers hold the DATA_DIR lock,
 * so one temp name per file is enough.
 */
export async function writeAtomically(path: string, text: string, mode: number): Promise<void> {
  const temp = `${path}.tmp`;
  try {
    const handle = await open(temp, 'w', mode);
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    // A write's own error names no file: this one does, for the operator (open-when-room.ts reads `path`).
    throw Object.assign(new Error(`could not write ${path}: ${(error as Error).message}`, { cause: error }), { path });
  }
  await syncDirectory(dirname(path));
}
