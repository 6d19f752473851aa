// `npm start` as an operator (Docker's `CMD npm start`, systemd) runs it: no rebuild of a fresh dist/, and SIGTERM to npm stops everything.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort } from '../support/redis-server.js';
import { getJson } from '../support/service.js';
import { exited } from '../support/service-process.js';
import { pollUntil, waitUntil } from '../support/wait-until.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BUILD = join(ROOT, 'scripts', 'build.mjs');
const STAMP = join(ROOT, 'dist', '.build-stamp');

/** Whether a process of that id is still running (a zombie waiting for its parent to reap it is not). */
function running(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
}

describe('npm start', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'npm-start-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('starts from the built dist/ without rebuilding it, and SIGTERM to npm stops the service and its anvil cleanly', async () => {
    // The test runs on the build under test (npm test builds first): a rebuild here would rewrite the dist/ it runs from.
    assert.equal(spawnSync(process.execPath, [BUILD, '--check']).status, 0, 'dist/ is built from the sources as they are');
    const stamp = statSync(STAMP).mtimeMs;
    const port = await freePort();
    // No REGISTRY_FILE: the embedded devnet, as `npm start` runs by default.
    const env = { ...process.env, PORT: String(port), DATA_DIR: dataDir, REGISTRY_FILE: '', RPC_URL: '', REQUEST_LOG: 'off' };
    const npm = spawn('npm', ['start'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    npm.stdout.on('data', (chunk: Buffer) => (output += chunk));
    npm.stderr.on('data', (chunk: Buffer) => (output += chunk));
    after(() => {
      if (npm.exitCode === null && npm.signalCode === null) npm.kill('SIGKILL');
    });
    const base = `http://127.0.0.1:${port}`;
    await pollUntil('the service answers /healthz', () => getJson(`${base}/healthz`).catch(() => null), (answer) => answer?.status === 200, 120_000, 100);
    const status = await getJson(`${base}/status.json`);
    const anvil = status.json.components.chain.anvil_pid as number;
    const node = Number(/"pid":(\d+)/.exec(output)?.[1]);
    assert.ok(running(anvil) && running(node), output);

    npm.kill('SIGTERM');
    await exited(npm);
    assert.equal(npm.exitCode, 0, output);
    await waitUntil(() => !running(node) && !running(anvil), 'the service and its anvil are gone', 5_000);
    assert.doesNotMatch(output, /building dist\//, 'a fresh build is not redone');
    assert.equal(statSync(STAMP).mtimeMs, stamp, 'dist/ was not rewritten');
    assert.match(output, /SIGTERM: closing/);
    assert.match(output, new RegExp(`devnet: anvil pid ${anvil} stopped with the service`));
    assert.doesNotMatch(output, /exited unexpectedly/);
  });
});
