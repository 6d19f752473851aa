// The file log's LMDB index (DATA_DIR/audit/index) as an operator meets it: deleted while stopped, or on a disk that fills.
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
const tempDir = useTempDirs('audit-index-test-');

const wallet = (n: number) => `0x${(n + 1).toString(16).padStart(40, '0')}`;
const evaluate = (service: TestService, n: number) => postJson(`${service.base}/api/v1/analyze/free`, sampleTrade({ wallet: wallet(n % 3), amount: 1 }));
const listed = async (service: TestService, path: string) =>
  ((await getJson(`${service.base}${path}`)).json.records as Array<{ seq: number; hash: string }>).map((r) => [r.seq, r.hash]);

describe('the file audit log\'s index', () => {
  it('is rebuilt from audit.log at start when deleted, saying so, with the same listings and chains', async () => {
    const dataDir = await tempDir();
    const env = { RATE_LIMITS: 'off', AUDIT_FSYNC: 'always' };
    const first = await startTestService(env, dataDir);
    const before: Array<Array<Array<number | string>>> = [];
    try {
      for (let n = 0; n < 30; n++) assert.equal((await evaluate(first, n)).status, 200);
      for (let w = 0; w < 3; w++) before.push(await listed(first, `/api/v1/audit/wallet/${wallet(w)}?limit=100`));
    } finally {
      await first.stop(false);
    }
    rmSync(join(dataDir, 'audit', 'index'), { recursive: true });

    const second = await startTestService(env, dataDir);
    try {
      assert.ok(second.logs.some((line) => /^audit: indexing audit\.log from its start \(\d+ bytes/.test(line)), second.logs.join('\n'));
      assert.ok(second.logs.some((line) => /^audit: rebuilt the index from the whole log \(30 records in/.test(line)), second.logs.join('\n'));
      for (let w = 0; w < 3; w++) assert.deepEqual(await listed(second, `/api/v1/audit/wallet/${wallet(w)}?limit=100`), before[w]);
      const next = await evaluate(second, 0);
      assert.equal(next.json.audit_seq, 31);
      const verified = await getJson(`${second.base}/api/v1/audit/verify/${wallet(0)}`);
      assert.deepEqual([verified.json.healthy, verified.json.total], [true, 11]);
    } finally {
      await second.stop();
    }
  });

  it('fails closed while its own disk is full, stays up, and heals once space returns with nothing acknowledged lost', async () => {
    const dataDir = await tempDir();
    const index = join(dataDir, 'audit', 'index');
    mkdirSync(index, { recursive: true });
    disks.mount(index, '4m');
    const service = await startTestService({ RATE_LIMITS: 'off', AUDIT_FSYNC: 'always' }, dataDir);
    try {
      const received = new Map<number, string>();
      let n = 0;
      for (; n < 5; n++) {
        const answer = await evaluate(service, n);
        assert.equal(answer.status, 200, answer.text);
        received.set(answer.json.audit_seq, answer.json.audit_hash);
      }
      const filler = join(index, 'filler');
      fillDisk(filler);
      // The index's free pages may take a commit or two; then a commit needs room the disk lacks.
      const down = await pollUntil('an evaluation refused and the audit log down', async () => {
        const answer = await evaluate(service, n++);
        if (answer.status === 200) received.set(answer.json.audit_seq, answer.json.audit_hash);
        return { answer, status: (await getJson(`${service.base}/status.json`)).json.components.audit };
      }, ({ answer, status }) => answer.status !== 200 && status.status === 'down');
      assert.equal(down.answer.status, 503, down.answer.text);
      assert.deepEqual([down.answer.json.code, down.answer.json.audit_seq], ['audit_unavailable', null]);
      assert.match(down.status.reason, new RegExp(`the audit index ${index} could not be written`));

      rmSync(filler);
      const healed = await pollUntil('an evaluation recorded again', () => evaluate(service, n++), (answer) => answer.status === 200, 10_000, 100);
      assert.equal(healed.json.audit_seq, received.size + 1, 'the next record follows the last acknowledged one: nothing lost, nothing reordered');
      received.set(healed.json.audit_seq, healed.json.audit_hash);
      assert.equal((await getJson(`${service.base}/status.json`)).json.components.audit.status, 'ok');
      assert.deepEqual((await listed(service, '/api/v1/audit/global')).reverse(), [...received]);
      const verdict = await getJson(`${service.base}/api/v1/audit/verify`);
      assert.deepEqual([verdict.json.healthy, verdict.json.total], [true, received.size]);
    } finally {
      await service.stop(false);
    }
  });
});
