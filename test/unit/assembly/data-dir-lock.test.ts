// The DATA_DIR lock: one holder at a time, named in its file, taken over from a dead holder without any cleanup.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DirectoryLocked, LOCK_FILE_NAME, lockDataDir } from '../../../src/assembly/data-dir-lock.js';
import { useTempDirs } from '../../support/temp-dirs.js';

const tempDir = useTempDirs('data-dir-lock-test-');

/** A child that takes the flock on argv[1] (with a text of its own in it), says so, and holds it until killed. */
const HOLD_LOCK = `const fs = require('node:fs'); const { flockSync } = require(${JSON.stringify(createRequire(import.meta.url).resolve('fs-ext'))});
const fd = fs.openSync(process.argv[1], 'w'); flockSync(fd, 'exnb'); fs.writeSync(fd, 'held by a test'); process.stdout.write('held'); setInterval(() => {}, 1000);`;

describe('DATA_DIR lock', () => {
  it('refuses a second lock of a DATA_DIR this process already holds, and allows it after release', async () => {
    const dir = await tempDir();
    const first = lockDataDir(dir);
    assert.equal(first.path, join(dir, LOCK_FILE_NAME));
    assert.throws(() => lockDataDir(dir), (error: Error) =>
      error instanceof DirectoryLocked && error.message.includes(`, pid ${process.pid}, started at `) &&
      error.message.includes('two services on one DATA_DIR would fork the audit chain and share its store'));
    await first.release();
    await lockDataDir(dir).release();
  });

  it('refuses while another live process holds the lock, naming it as it wrote itself', async () => {
    const dir = await tempDir();
    const first = lockDataDir(dir);
    assert.equal(JSON.parse(readFileSync(join(dir, LOCK_FILE_NAME), 'utf8')).pid, process.pid);
    await first.release();
    // A process that holds the kernel lock on the file, whatever the file says.
    const holder = spawn(process.execPath, ['-e', HOLD_LOCK, join(dir, LOCK_FILE_NAME)], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await new Promise((resolve) => holder.stdout!.once('data', resolve));
      assert.throws(() => lockDataDir(dir), /in use by process held by a test \(lock file .*data-dir\.lock\); two services on one DATA_DIR/);
    } finally {
      holder.kill('SIGKILL');
      await new Promise((resolve) => holder.once('exit', resolve));
    }
    // The kernel let go with the holder: the next start takes the lock without anyone deleting the file.
    await lockDataDir(dir).release();
  });

  it('takes a lock file left by a process that died (SIGKILL, power cut), a bare pid, or a torn one', async () => {
    const dir = await tempDir();
    const dead = spawnSync('true').pid;
    for (const content of [`${dead}\n`, '1\n', '']) {
      writeFileSync(join(dir, LOCK_FILE_NAME), content);
      const lock = lockDataDir(dir);
      assert.equal(JSON.parse(readFileSync(join(dir, LOCK_FILE_NAME), 'utf8')).pid, process.pid);
      await lock.release();
      assert.equal(existsSync(join(dir, LOCK_FILE_NAME)), false);
    }
  });
});
