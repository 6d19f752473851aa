// The file log's disk fills up and frees again: appends fail closed and say so, then resume by themselves with nothing acknowledged lost.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { getJson, postJson, sampleTrade, startTestService, type TestService } from '../../../support/service.js';
import { useTempDirs } from '../../../support/temp-dirs.js';
import { pollUntil } from '../../../support/wait-until.js';
import { fillDisk, useSmallDisks } from '../../../support/full-disk.js';

// Before the folders' removal hook, so unmounting comes first.
const disks = useSmallDisks();
const tempDir = useTempDirs('audit-disk-full-test-');

/** A small filesystem of its own under DATA_DIR/audit, so filling it fills nothing else. */
async function smallDisk(): Promise<string> {
  const dataDir = await tempDir();
  const audit = join(dataDir, 'audit');
  mkdirSync(audit);
  disks.mount(audit, '8m');
  return dataDir;
}

const evaluate = (service: TestService, n: number) =>
  postJson(`${service.base}/api/v1/analyze/free`, sampleTrade({ wallet: `0x${(n + 1).toString(16).padStart(40, '0')}`, amount: 1 }));

describe('a full disk under the file log', () => {
  it('fails closed and reports down while appends fail, and heals without a restart once space returns', async () => {
    const dataDir = await smallDisk();
    const service = await startTestService({ RATE_LIMITS: 'off', AUDIT_FSYNC: 'always' }, dataDir);
    try {
      const received = new Map<number, string>();
      let n = 0;
      for (; n < 5; n++) {
        const answer = await evaluate(service, n);
        assert.equal(answer.status, 200, answer.text);
        received.set(answer.json.audit_seq, answer.json.audit_hash);
      }
      const filler = join(dataDir, 'audit', 'filler');
      fillDisk(filler);
      // The last page of each file may still take a record or two; the next ones find no room.
      const refused = await pollUntil('an evaluation refused on the full disk', async () => {
        const answer = await evaluate(service, n++);
        if (answer.status === 200) received.set(answer.json.audit_seq, answer.json.audit_hash);
        return answer;
      }, (answer) => answer.status !== 200);
      assert.equal(refused.status, 503, refused.text);
      assert.deepEqual([refused.json.code, refused.json.audit_seq], ['audit_unavailable', null]);
      const status = await pollUntil('the audit log reported down', async () => (await getJson(`${service.base}/status.json`)).json,
        (doc) => doc.components.audit.status === 'down');
      assert.match(status.components.audit.reason, /disk is full|ENOSPC/);
      const health = await getJson(`${service.base}/healthz`);
      assert.deepEqual([health.status, health.json.status], [200, 'degraded']);
      assert.match(health.json.reason, /disk is full|ENOSPC/);

      rmSync(filler);
      const healed = await pollUntil('an evaluation recorded again', () => evaluate(service, n++), (answer) => answer.status === 200, 10_000, 100);
      assert.equal(healed.json.audit_seq, received.size + 1, 'the next record follows the last acknowledged one: nothing lost, nothing reordered');
      received.set(healed.json.audit_seq, healed.json.audit_hash);
      assert.equal((await getJson(`${service.base}/status.json`)).json.components.audit.status, 'ok');
      assert.deepEqual((await getJson(`${service.base}/healthz`)).json, { status: 'ok', store: 'reachable' });
      const listed = (await getJson(`${service.base}/api/v1/audit/global`)).json.records as Array<{ seq: number; hash: string }>;
      assert.deepEqual(listed.map((r) => [r.seq, r.hash]).reverse(), [...received]);
      const verdict = await getJson(`${service.base}/api/v1/audit/verify`);
      assert.deepEqual([verdict.json.healthy, verdict.json.total], [true, received.size]);
    } finally {
      await service.stop(false);
    }
  });
});
