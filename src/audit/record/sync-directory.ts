// Durability of a new or renamed file: its directory entry must reach the disk too.
import { open } from 'node:fs/promises';

/** A newly created or renamed file survives a power cut only once its directory entry is synced too. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
