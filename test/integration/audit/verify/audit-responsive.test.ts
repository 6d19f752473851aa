// A long verification runs on its pool while the same process keeps answering evaluations.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { after, describe, it } from 'node:test';
import { fileChunks } from '../../../../src/audit/verify/chunk-sources.js';
import { verifyChunks } from '../../../../src/audit/verify/verify-chunks.js';
import { VerifyPool } from '../../../../src/audit/verify/verify-pool.js';
import { getJson, postJson, sampleTrade, startTestService, type TestService } from '../../../support/service.js';
import { buildChain, fileText } from '../../../support/audit-verify-chains.js';

const OPEN_MARKET = Date.UTC(2026, 10, 17, 15, 0, 0);
const RECORDS = 200_000;

let running: TestService | undefined;
const pool = new VerifyPool(2);
after(async () => {
  await pool.close();
  await running?.stop();
});

describe('verification and evaluations together', () => {
  it(`keeps answering evaluations while ${RECORDS.toLocaleString('en-US')} records are verified`, async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-responsive-test-'));
    mkdirSync(join(dir, 'audit'));
    const { lines, head } = buildChain(RECORDS);
    const log = join(dir, 'audit', 'audit.log');
    writeFileSync(log, fileText(lines));
    // The service appends to its log; the verification reads the chain as it was at start.
    const snapshot = join(dir, 'snapshot.log');
    copyFileSync(log, snapshot);
    running = await startTestService({ RATE_LIMITS: 'off' }, dir, { now: () => OPEN_MARKET });

    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    let finished = false;
    const verification = verifyChunks(pool, fileChunks(snapshot), { field: 'prev_hash', head }).finally(() => {
      finished = true;
    });
    let answeredDuring = 0;
    for (let n = 0; !finished; n++) {
      const response = await postJson(`${running.base}/api/v1/analyze/free`, sampleTrade({ wallet: `0x${(n + 1).toString(16).padStart(40, '0')}`, amount: 1 }));
      assert.equal(response.status, 200);
      assert.equal(response.json.audit_seq, RECORDS + n + 1);
      if (!finished) answeredDuring++;
    }
    const report = await verification;
    delay.disable();
    t.diagnostic(`evaluations answered during the verification: ${answeredDuring}; event-loop delay max ${(delay.max / 1e6).toFixed(1)} ms`);
    assert.deepEqual(report, { total: RECORDS, tampered: 0, healthy: true, firstBrokenSeq: null, problems: [] });
    assert.ok(answeredDuring >= 5, `only ${answeredDuring} evaluations were answered during the verification`);
    const api = await getJson(`${running.base}/api/v1/audit/verify?limit=1000`);
    assert.equal(api.json.healthy, true);
  });
});
