// `npm start`'s entry point as a user meets it: bad configuration, refusing the slow fallback, clean stop.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { freePort } from '../support/redis-server.js';
import { getJson, postJson, SAMPLE_REGISTRY, sampleTrade } from '../support/service.js';
import { exited, startServiceProcess } from '../support/service-process.js';
import { waitUntil } from '../support/wait-until.js';

interface Run {
  code: number | null;
  output: string;
}

/**
 * Runs `npm start`'s entry until it exits: one that listens runs `whileUp`, then gets SIGTERM
 * (SIGKILL when `whileUp` fails); without `whileUp` it is expected to exit by itself.
 */
async function runMain(env: Record<string, string>, whileUp?: () => Promise<void>): Promise<Run> {
  const service = await startServiceProcess(env, { expectExit: true });
  if (service.base !== '' && whileUp) {
    try {
      await whileUp();
    } catch (error) {
      await service.stop('SIGKILL');
      throw error;
    }
    await service.stop('SIGTERM');
  }
  await exited(service.child);
  return { code: service.child.exitCode, output: service.output() };
}

describe('start-up', () => {
  it('exits with status 2 and names each bad variable', async () => {
    const run = await runMain({ PORT: 'http', RATE_LIMITS: 'maybe' });
    assert.equal(run.code, 2);
    assert.match(run.output, /invalid configuration:/);
    assert.match(run.output, /PORT="http"/);
    assert.match(run.output, /RATE_LIMITS="maybe"/);
  });

  it('refuses a head stream without the node it belongs to, and one that is not a WebSocket URL', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'startup-ws-'));
    try {
      const alone = await runMain({ RPC_WS_URL: 'ws://127.0.0.1:9', REGISTRY_FILE: SAMPLE_REGISTRY, DATA_DIR: dataDir, PORT: '0' });
      assert.notEqual(alone.code, 0);
      assert.match(alone.output, /RPC_WS_URL needs RPC_URL/);
      const http = await runMain({ RPC_WS_URL: 'http://127.0.0.1:9', PORT: '0' });
      assert.equal(http.code, 2);
      assert.match(http.output, /RPC_WS_URL="http:\/\/127\.0\.0\.1:9"/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses to run on the JS fallback of uWebSockets.js', async () => {
    const run = await runMain({ UWS_USE_FALLBACK: '1', PORT: '0' });
    assert.equal(run.code, 1);
    assert.match(run.output, /refusing to run/);
  });

  it('serves, prints where, and stops cleanly on SIGTERM', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'startup-'));
    const port = await freePort();
    try {
      const run = await runMain({ PORT: String(port), DATA_DIR: dataDir, REGISTRY_FILE: SAMPLE_REGISTRY }, async () => {
        const health = await getJson(`http://127.0.0.1:${port}/healthz`);
        assert.equal(health.status, 200);
      });
      assert.equal(run.code, 0);
      assert.match(run.output, new RegExp(`listening on http://127.0.0.1:${port}`));
      assert.match(run.output, /registry \(8 assets, chain 4663\): TSLA, NVDA/);
      assert.match(run.output, /SIGTERM: closing/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('says at start that its RPC_URL node does not answer, naming only its origin', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'startup-'));
    const node = `http://127.0.0.1:${await freePort()}`;
    try {
      const run = await runMain({ PORT: '0', DATA_DIR: dataDir, REGISTRY_FILE: SAMPLE_REGISTRY, RPC_URL: `http://user:secret@${node.slice(7)}/key-in-path` }, async () => undefined);
      assert.equal(run.code, 0);
      const line = run.output.split('\n').find((text) => text.includes('chain: node'));
      assert.ok(line, run.output);
      // The cause names the refused address (node's error), never the URL's credentials or path.
      assert.match(line, new RegExp(`"  chain: node ${node}: the node did not answer the head poll \\(HTTP request failed: connect ECONNREFUSED ${node.slice(7)}\\); evaluations fail closed until it answers"`));
      assert.doesNotMatch(run.output, /secret|key-in-path/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('stops under load without a failed answer, every record under its last checkpoint', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'startup-'));
    const port = await freePort();
    const agent = new Agent({ keepAlive: true, maxSockets: 16 });
    const answers: { status: number; code?: string; seq?: number | null }[] = [];
    /** One client on a keep-alive connection, sending until the service is gone. */
    const client = async (k: number) => {
      for (let i = 0; ; i++) {
        const wallet = `0x${(0x57000000 + k * 100_000 + i).toString(16).padStart(40, '0')}`;
        const answer = await postJson(`http://127.0.0.1:${port}/api/v1/analyze/free`, sampleTrade({ wallet }), {}, agent).catch(() => null);
        if (answer === null) return;
        answers.push({ status: answer.status, code: answer.json?.code, seq: answer.json?.audit_seq });
      }
    };
    let clients: Promise<unknown> = Promise.resolve();
    try {
      const run = await runMain({ PORT: String(port), DATA_DIR: dataDir, REGISTRY_FILE: SAMPLE_REGISTRY, RATE_LIMITS: 'off', REQUEST_LOG: 'off' }, async () => {
        clients = Promise.all(Array.from({ length: 16 }, (_, k) => client(k)));
        // SIGTERM (sent when this returns) lands while every client has a request in flight or on its way.
        await waitUntil(() => answers.length >= 300, 'the clients have 300 answers', 60_000, 1);
      });
      assert.equal(run.code, 0, run.output);
      await clients; // each ends once the service is gone
      const failed = answers.filter((a) => !(a.status === 200 && typeof a.seq === 'number') && !(a.status === 503 && a.code === 'service_stopping'));
      assert.deepEqual(failed.slice(0, 5), [], `${failed.length} answers were neither a verdict nor service_stopping`);
      const records = readFileSync(join(dataDir, 'audit', 'audit.log'), 'utf8').trim().split('\n').length;
      const last = JSON.parse(readFileSync(join(dataDir, 'audit', 'checkpoints.log'), 'utf8').trim().split('\n').at(-1)!);
      assert.equal(last.tree_size, records, 'the clean stop signed every record');
      assert.equal(Math.max(...answers.map((a) => a.seq ?? 0)), records, 'every verdict sent is recorded');
    } finally {
      agent.destroy();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses a second service on the same DATA_DIR, which would fork the audit chain', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'startup-'));
    const env = { DATA_DIR: dataDir, REGISTRY_FILE: SAMPLE_REGISTRY };
    const lock = join(dataDir, 'data-dir.lock');
    try {
      const first = await runMain({ ...env, PORT: String(await freePort()) }, async () => {
        const second = await runMain({ ...env, PORT: String(await freePort()) });
        assert.equal(second.code, 1);
        assert.match(second.output, /failed to start: .* is in use by the service on host .*, pid \d+, started at .* \(lock file .*data-dir\.lock\); two services on one DATA_DIR would fork the audit chain/);
        assert.ok(existsSync(lock), 'the first service still holds its lock');
      });
      assert.equal(first.code, 0);
      assert.equal(existsSync(lock), false, 'a clean stop removes the lock');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses a port another service listens on, instead of sharing its requests', async () => {
    const [firstDir, secondDir] = [mkdtempSync(join(tmpdir(), 'startup-')), mkdtempSync(join(tmpdir(), 'startup-'))];
    const port = String(await freePort());
    try {
      const first = await runMain({ PORT: port, DATA_DIR: firstDir, REGISTRY_FILE: SAMPLE_REGISTRY }, async () => {
        // Should it listen after all, it is stopped and the test fails, rather than wait for an exit that never comes.
        const second = await runMain({ PORT: port, DATA_DIR: secondDir, REGISTRY_FILE: SAMPLE_REGISTRY }, async () => {
          throw new Error('a second service listens on the port the first one holds');
        });
        assert.equal(second.code, 1);
        assert.match(second.output, new RegExp(`failed to start: could not listen on 127\\.0\\.0\\.1:${port} \\(in use or not permitted\\)`));
        assert.equal(existsSync(join(secondDir, 'data-dir.lock')), false, 'the refused service let go of its DATA_DIR');
        // Every request still reaches the first service: its audit chain is the only one written.
        for (let i = 0; i < 20; i++) {
          const wallet = `0x${(0x5eed0000 + i).toString(16).padStart(40, '0')}`;
          const verdict = await postJson(`http://127.0.0.1:${port}/api/v1/analyze/free`, sampleTrade({ wallet }));
          assert.equal(verdict.json.audit_seq, i + 1, verdict.text);
        }
      });
      assert.equal(first.code, 0);
    } finally {
      rmSync(firstDir, { recursive: true, force: true });
      rmSync(secondDir, { recursive: true, force: true });
    }
  });
});

