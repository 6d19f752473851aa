// `npm test` on a machine without the Debian packages the suite needs: one message naming them and the install line, before anything runs.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { exited } from '../support/service-process.js';
import { useTempDirs } from '../support/temp-dirs.js';
import { pollUntil } from '../support/wait-until.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PREFLIGHT = join(ROOT, 'scripts', 'test-preflight.mjs');
const NPM_CLI = '/usr/lib/node_modules/npm/bin/npm-cli.js';
const CHROMIUM = '/usr/bin/chromium';
const tempDir = useTempDirs('npm-test-preflight-');

/** The full path of a command found on this machine's PATH. */
function which(command: string): string {
  const found = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' }).stdout.trim();
  assert.ok(found, `${command} is on PATH`);
  return found;
}

/** A PATH of one folder holding only node and sh: a fresh machine's, without redis-server, redis-cli and wrk. */
async function bareMachinePath(): Promise<string> {
  const bin = await tempDir();
  symlinkSync(process.execPath, join(bin, 'node'));
  symlinkSync(which('sh'), join(bin, 'sh'));
  return bin;
}

/**
 * Runs `command` in a mount namespace of its own where /usr/bin/chromium is an empty file nobody may
 * run (a bind mount seen by that process alone), with PATH `path`: chromium is gone for it, not for the machine.
 */
async function withoutChromium(path: string, command: string[]): Promise<ChildProcess> {
  const blank = join(await tempDir(), 'not-chromium');
  writeFileSync(blank, '', { mode: 0o644 });
  const script = `${which('mount')} --bind "$0" ${CHROMIUM} && exec "$@"`;
  return spawn(which('unshare'), ['--mount', '--', which('sh'), '-c', script, blank, ...command], {
    cwd: ROOT,
    env: { ...process.env, PATH: path },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
}

/** Everything the process writes, as it writes it. */
function collect(child: ChildProcess): { text: string } {
  const output = { text: '' };
  child.stdout?.on('data', (chunk: Buffer) => (output.text += chunk));
  child.stderr?.on('data', (chunk: Buffer) => (output.text += chunk));
  return output;
}

describe('npm test preflight', () => {
  it('npm test without redis-server, redis-cli, wrk and chromium exits 1 naming all four and the one apt-get line, before building or running a test', async () => {
    const npm = await withoutChromium(await bareMachinePath(), [process.execPath, NPM_CLI, 'test']);
    const output = collect(npm);
    after(() => {
      if (npm.exitCode === null && npm.signalCode === null) process.kill(-npm.pid!, 'SIGKILL');
    });
    // Without the preflight the whole suite would start: stop it as soon as it does, and fail.
    const suiteStarted = () => /building dist\/|^(not )?ok \d|✔|✖|▶/m.test(output.text);
    await pollUntil('npm test ends or starts its suite', async () => npm.exitCode !== null || suiteStarted(), (done) => done, 60_000, 20);
    if (npm.exitCode === null) process.kill(-npm.pid!, 'SIGKILL');
    await exited(npm);
    assert.equal(suiteStarted(), false, `no test ran and nothing was built:\n${output.text}`);
    assert.equal(npm.exitCode, 1, output.text);
    assert.match(
      output.text,
      /npm test: not run, missing redis-server, redis-cli, wrk, \/usr\/bin\/chromium\.\nThe tests start their own Redis servers, load a server with wrk and drive a headless chromium\. Install what is missing \(Debian\), then run npm test again:\n {2}apt-get install redis-server redis-tools wrk chromium\n/,
    );
  });

  it('names only chromium when the Redis commands and wrk are on PATH', async () => {
    const preflight = await withoutChromium(process.env.PATH ?? '', [process.execPath, PREFLIGHT]);
    const output = collect(preflight);
    await exited(preflight);
    assert.equal(preflight.exitCode, 1, output.text);
    assert.match(output.text, /missing \/usr\/bin\/chromium\.\n/);
    assert.match(output.text, /\n {2}apt-get install chromium\n$/);
  });

  it('says nothing and lets the suite run when everything is installed', () => {
    const preflight = spawnSync(process.execPath, [PREFLIGHT], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(preflight.status, 0, preflight.stderr);
    assert.equal(preflight.stdout + preflight.stderr, '');
  });
});
