// The audit index's own disk fills while audit.log's still has room: under AUDIT_FSYNC=batch the index commit at the log's
// sync fails, the lines it would have committed stay staged (and listed), appends stop with a 503, and a heal commits them.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { getJson, postJson, SAMPLE_REGISTRY, sampleTrade } from '../../../support/service.js';
import { startServiceProcess, type ServiceProcess } from '../../../support/service-process.js';
import { useTempDirs } from '../../../support/temp-dirs.js';
import { pollUntil } from '../../../support/wait-until.js';
import { fillDisk, useSmallDisks } from '../../../support/full-disk.js';

// Before the folders' removal hook, so unmounting comes first.
const disks = useSmallDisks();
const tempDir = useTempDirs('index-commit-full-test-');

const start = (dataDir: string): Promise<ServiceProcess> => startServiceProcess({
  PORT: '0', DATA_DIR: dataDir, REGISTRY_FILE: SAMPLE_REGISTRY, WORKERS: '1', REQUEST_LOG: 'off', RATE_LIMITS: 'off', AUDIT_FSYNC: 'batch',
});

const evaluate = (service: ServiceProcess, n: number) =>
  postJson(`${service.base}/api/v1/analyze/free`, sampleTrade({ wallet: `0x${(n + 1).toString(16).padStart(40, '0')}`, amount: 1 }));

/** The global listing, oldest first, as [seq, hash]. */
async function listed(service: ServiceProcess): Promise<Array<[number, string]>> {
  const records = (await getJson(`${service.base}/api/v1/audit/global?limit=1000`)).json.records as Array<{ seq: number; hash: string }>;
  return records.map((record): [number, string] => [record.seq, record.hash]).reverse();
}

describe('an audit index whose disk fills while the log has room', () => {
  it('stops appends once the commit at the log\'s sync fails, keeps what it acknowledged listed, and commits it when room returns', async () => {
    const dataDir = await tempDir();
    const index = join(dataDir, 'audit', 'index');
    mkdirSync(index, { recursive: true });
    // The index on a small filesystem of its own: filling it leaves audit.log's disk (the test folder's) with room.
    disks.mount(index, '1m');
    const received = new Map<number, string>();
    const first = await start(dataDir);
    try {
      let n = 0;
      for (; n < 5; n++) {
        const answer = await evaluate(first, n);
        assert.equal(answer.status, 200, answer.text);
        received.set(answer.json.audit_seq, answer.json.audit_hash);
      }
      const filler = join(index, 'filler');
      fillDisk(filler);
      // Under batch an append is answered once written to audit.log; LMDB's last free pages take a few commits more.
      const refused = await pollUntil('an evaluation refused once the index commit failed', async () => {
        const answer = await evaluate(first, n++);
        if (answer.status === 200) received.set(answer.json.audit_seq, answer.json.audit_hash);
        return answer;
      }, (answer) => answer.status !== 200, 120_000, 20);
      assert.deepEqual([refused.status, refused.json.code, refused.json.audit_seq], [503, 'audit_unavailable', null], refused.text);
      const audit = (await getJson(`${first.base}/status.json`)).json.components.audit;
      assert.equal(audit.status, 'down');
      assert.match(audit.reason, new RegExp(`^audit log: appends stopped: the audit index ${index} could not be written: No space left on device`));
      assert.deepEqual(await listed(first), [...received], 'every acknowledged record is listed, the staged ones too');

      rmSync(filler);
      const healed = await pollUntil('an evaluation recorded again', () => evaluate(first, n++), (answer) => answer.status === 200, 60_000, 100);
      assert.equal(healed.json.audit_seq, received.size + 1, 'the next record follows the last acknowledged one: nothing lost, nothing sealed twice');
      received.set(healed.json.audit_seq, healed.json.audit_hash);
      assert.equal((await getJson(`${first.base}/status.json`)).json.components.audit.status, 'ok');
    } finally {
      await first.stop();
    }
    // The heal committed the staged lines: a clean stop leaves an index the next start trusts whole.
    const second = await start(dataDir);
    try {
      assert.doesNotMatch(second.output(), /indexing audit\.log|rebuil/, second.output());
      assert.deepEqual(await listed(second), [...received]);
      const verdict = await getJson(`${second.base}/api/v1/audit/verify?limit=1000`);
      assert.deepEqual([verdict.json.healthy, verdict.json.total], [true, received.size]);
    } finally {
      await second.stop();
    }
  });
});
