// A file log that failed for want of room heals only on room read after the failure, never on a reading from before it.
import assert from 'node:assert/strict';
import { rmSync, statfsSync } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { LogHealth, MIN_FREE_BYTES } from '../../../../src/audit/file/log-health.js';
import { useTempDirs } from '../../../support/temp-dirs.js';
import { pollUntil } from '../../../support/wait-until.js';
import { fillDisk, useSmallDisks } from '../../../support/full-disk.js';

// Before the folders' removal hook, so unmounting comes first.
const disks = useSmallDisks();
const tempDir = useTempDirs('log-heal-full-disk-');

const freeBytes = (dir: string) => {
  const found = statfsSync(dir);
  return found.bavail * found.bsize;
};

describe('a log that failed on a disk that just filled', () => {
  it('stays stopped, saying the disk is full, until room returns, and heals only then', async () => {
    const disk = disks.mount(await tempDir(), '2m');
    const path = join(disk, 'audit.log');
    const fh = await open(path, 'a+');
    const ino = (await stat(path, { bigint: true })).ino;
    let looked = 0;
    /** The room on the disk at each heal: a heal is what lets appends and paid settlements through again. */
    const healedWith: number[] = [];
    const health = new LogHealth(path, fh, ino, {
      end: () => { looked++; return 0; },
      writing: () => false,
      heal: async () => { healedWith.push(freeBytes(disk)); },
      report: () => undefined,
    });
    try {
      // The watch has looked at the file, and so read the room, while the disk was empty.
      await pollUntil('the watch looked at the file', async () => looked, (count) => count > 0);
      assert.equal(health.readiness(), null);
      const filler = join(disk, 'filler');
      fillDisk(filler);
      health.fail('io', 'I/O error: ENOSPC: no space left on device, write');
      // What /status.json and the check before a paid settlement read, the same: stopped, and why it stays so.
      const stopped = await pollUntil('the full disk read after the failure', async () => health.readiness(), (reason) => reason === null || /disk is full/.test(reason));
      assert.match(stopped ?? 'healed on a full disk', /^audit log: appends stopped: I\/O error: ENOSPC.*; the audit log's disk is full \(\d+ bytes free\)$/);
      assert.deepEqual(healedWith, [], 'no heal while the disk is full');

      rmSync(filler);
      await pollUntil('the log healed once room returned', async () => health.readiness(), (reason) => reason === null);
      assert.ok(healedWith.length > 0 && healedWith.every((free) => free >= MIN_FREE_BYTES), `healed with ${healedWith.join(', ')} bytes free`);
    } finally {
      health.stop();
      await fh.close();
    }
  });
});
