// SIGKILL mid-load: after a restart the chain verifies, and every audit_seq a client was told is stored with its hash.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { EXIT_HEALTHY, runAuditVerify } from '../../../../src/tools/cli/audit-verify-command.js';
import { freePort } from '../../../support/redis-server.js';
import { SAMPLE_REGISTRY, getJson, postJson, sampleTrade } from '../../../support/service.js';
import { startServiceProcess, type ServiceProcess } from '../../../support/service-process.js';

const CLIENTS = 16;
const KILL_AFTER = 300;
const dataDir = mkdtempSync(join(tmpdir(), 'audit-crash-test-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));

/** The real service as `npm start` runs it, fsync off: a process crash must lose nothing anyway. */
function startService(port: number): Promise<ServiceProcess> {
  return startServiceProcess({
    PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, RATE_LIMITS: 'off', AUDIT_FSYNC: 'off', REGISTRY_FILE: SAMPLE_REGISTRY, WORKERS: '1',
  });
}

describe('a crash under load', () => {
  it('keeps every record a client was told about, in a chain that verifies', async () => {
    const port = await freePort();
    const first = await startService(port);
    const received = new Map<number, string>();
    let next = 0;
    let killed = false;
    const client = async () => {
      while (!killed) {
        const wallet = `0x${(++next).toString(16).padStart(40, '0')}`;
        try {
          const response = await postJson(`http://127.0.0.1:${port}/api/v1/analyze/free`, sampleTrade({ wallet, amount: 1 }));
          if (response.status === 200) received.set(response.json.audit_seq, response.json.audit_hash);
        } catch {
          return; // the connection died with the process: this client never got an answer
        }
        if (received.size >= KILL_AFTER && !killed) {
          killed = true;
          first.child.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, client));
    await first.stop('SIGKILL');
    assert.equal(first.child.signalCode, 'SIGKILL');
    assert.ok(received.size >= KILL_AFTER);

    const second = await startService(port);
    try {
      const verdict = await getJson(`http://127.0.0.1:${port}/api/v1/audit/verify?limit=1000`);
      assert.equal(verdict.status, 200);
      assert.deepEqual({ ...verdict.json, total: 0 }, { total: 0, tampered: 0, healthy: true, records: [], first_broken_seq: null });
      assert.ok(verdict.json.total >= received.size, `${verdict.json.total} records stored, ${received.size} answered`);

      const exported = await getJson(`http://127.0.0.1:${port}/api/v1/audit/export?limit=10000`);
      const stored = new Map(exported.text.split('\n').filter(Boolean).map((line) => [JSON.parse(line.slice(65)).seq as number, line.slice(0, 64)]));
      assert.equal(stored.size, verdict.json.total);
      for (const [seq, hash] of received) assert.equal(stored.get(seq), hash, `audit_seq ${seq}`);

      let report = '';
      const status = await runAuditVerify([dataDir, '--threads', '1'], { stdout: { write: (t: string) => (report += t) }, stderr: { write: () => true } });
      assert.equal(status, EXIT_HEALTHY, report);
    } finally {
      await second.stop();
    }
  });
});
