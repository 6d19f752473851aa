// Fills a real filesystem for the full-disk tests: a small tmpfs of the test's own, so nothing else fills.
import { closeSync, openSync, writeSync } from 'node:fs';

/** Writes `path` until the filesystem refuses another byte (ENOSPC even for one byte). */
export function fillDisk(path: string): void {
  const fd = openSync(path, 'w');
  const block = Buffer.alloc(64 * 1024, 1);
  try {
    for (let size = block.length; size > 0;) {
      try {
        writeSync(fd, block, 0, size);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
        size >>= 1;
      }
    }
  } finally {
    closeSync(fd);
  }
}
