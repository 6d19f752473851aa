// Fills a real filesystem for the full-disk tests: a small tmpfs of the test's own, so nothing else fills.
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';
import { after } from 'node:test';

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

/**
 * Small filesystems of a test file's own, unmounted after its tests. Call at the file's top level after any
 * `after` hook that stops a service using them (hooks run in the order they were registered, and a busy
 * filesystem cannot be unmounted) and before useTempDirs for the folders they are mounted on (unmount, then remove).
 */
export function useSmallDisks(): { mount(path: string, size: string): string } {
  const mounted: string[] = [];
  after(() => {
    for (const path of mounted.splice(0).reverse()) execFileSync('umount', [path]);
  });
  return {
    /** Mounts a tmpfs of `size` (as mount(8) takes it: 4m) on the folder `path`, so filling it fills nothing else. */
    mount(path: string, size: string): string {
      execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', path]);
      mounted.push(path);
      return path;
    },
  };
}
