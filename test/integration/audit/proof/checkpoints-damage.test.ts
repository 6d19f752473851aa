// A byte changed in checkpoints.log at rest, found at the next start: proofs stop with the file, line and byte named,
// no damaged checkpoint is served, verdicts are still recorded, and the restored file heals at the next start.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CheckpointSigner, type Checkpoint } from '../../../../src/audit/proof/checkpoint.js';
import { getJson, postJson, sampleTrade, startTestService, type TestService } from '../../../support/service.js';
import { ManualClock } from '../../../support/manual-clock.js';
import { pollUntil } from '../../../support/wait-until.js';

const SEED = Buffer.alloc(32, 7);
const ENV = { RATE_LIMITS: 'off', AUDIT_CHECKPOINT_RECORDS: '5', AUDIT_CHECKPOINT_SECONDS: '0', AUDIT_SIGNING_KEY: SEED.toString('base64') };
const clock = new ManualClock();

async function evaluate(target: TestService, n: number): Promise<void> {
  const response = await postJson(`${target.base}/api/v1/analyze/free`, sampleTrade({ wallet: `0x${(0xd00 + n).toString(16).padStart(40, '0')}`, amount: 1 }));
  assert.equal(response.status, 200, response.text);
}

/** A data folder whose checkpoints.log holds checkpoints 5, 10 and 12 (the last signed by the clean stop). */
async function signedLog(): Promise<{ dataDir: string; path: string; lines: string[] }> {
  const first = await startTestService(ENV, undefined, { now: clock.now });
  for (let n = 1; n <= 12; n++) await evaluate(first, n);
  await pollUntil('checkpoint 10', () => getJson(`${first.base}/api/v1/audit/checkpoint`), (r) => r.status === 200 && r.json.tree_size === 10);
  await first.stop(false);
  const path = join(first.dataDir, 'audit', 'checkpoints.log');
  const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
  assert.deepEqual(lines.map((line) => JSON.parse(line).tree_size), [5, 10, 12]);
  return { dataDir: first.dataDir, path, lines };
}

/** One hex digit of the root_hash changed: still JSON, still a checkpoint's shape, no longer what was signed. */
function rootDigitChanged(line: string): string {
  const at = line.indexOf('"root_hash":"') + 13;
  return `${line.slice(0, at)}${line[at] === '0' ? '1' : '0'}${line.slice(at + 1)}`;
}

function write(path: string, lines: string[]): void {
  writeFileSync(path, lines.map((line) => `${line}\n`).join(''));
}

describe('a checkpoints.log damaged at rest', () => {
  it('stops proofs naming the file, line and byte of a byte changed in its first line, and serves none of it', async () => {
    const { dataDir, path, lines } = await signedLog();
    write(path, [rootDigitChanged(lines[0]), ...lines.slice(1)]);
    const again = await startTestService(ENV, dataDir, { now: clock.now });
    try {
      const named = `${path} line 1 (byte 0) is damaged: the checkpoint signature does not verify with the published key`;
      const status = (await getJson(`${again.base}/status.json`)).json.components.audit;
      assert.equal(status.status, 'degraded');
      assert.ok(status.reason.startsWith(named), status.reason);
      assert.equal(status.proofs.status, 'fail');
      for (const path of ['/api/v1/audit/checkpoint?tree_size=5', '/api/v1/audit/checkpoint', '/api/v1/audit/proof/3', '/api/v1/audit/consistency?first=5&second=12']) {
        const refused = await getJson(`${again.base}${path}`);
        assert.equal(refused.status, 503, path);
        assert.equal(refused.json.code, 'audit_proofs_unavailable', path);
        assert.ok(refused.json.detail.startsWith(named), refused.json.detail);
      }
      assert.ok(again.logs.some((line) => line.startsWith(`audit: ${named}`)), 'the start says so in the log');
      await evaluate(again, 13);
    } finally {
      await again.stop(false);
    }
    assert.equal(readFileSync(path, 'utf8'), [rootDigitChanged(lines[0]), ...lines.slice(1)].map((line) => `${line}\n`).join(''),
      'nothing was signed into a damaged file');
    write(path, lines);
    const restored = await startTestService(ENV, dataDir, { now: clock.now });
    try {
      const proof = await pollUntil('a proof once restored', () => getJson(`${restored.base}/api/v1/audit/proof/3`), (r) => r.status === 200);
      assert.equal(proof.json.checkpoint.tree_size, 12);
      assert.equal((await getJson(`${restored.base}/status.json`)).json.components.audit.proofs.status, 'ok');
    } finally {
      await restored.stop();
    }
  });

  it('names checkpoints.log, not the audit log, for a byte changed in its last line', async () => {
    const { dataDir, path, lines } = await signedLog();
    write(path, [...lines.slice(0, 2), rootDigitChanged(lines[2])]);
    const again = await startTestService(ENV, dataDir, { now: clock.now });
    try {
      const offset = lines[0].length + lines[1].length + 2;
      const status = (await getJson(`${again.base}/status.json`)).json.components.audit;
      assert.ok(status.reason.startsWith(`${path} line 3 (byte ${offset}) is damaged: the checkpoint signature does not verify`), status.reason);
      const refused = await getJson(`${again.base}/api/v1/audit/checkpoint`);
      assert.deepEqual([refused.status, refused.json.code], [503, 'audit_proofs_unavailable']);
      assert.ok(!again.logs.some((line) => line.includes('the log no longer matches')), again.logs.join('\n'));
    } finally {
      await again.stop();
    }
  });

  it('stops proofs when a stored checkpoint below the newest, signed as it reads, does not hold the log\'s root', async () => {
    const { dataDir, path, lines } = await signedLog();
    const { signature: _signature, key_id: _key, ...body } = JSON.parse(lines[0]) as Checkpoint;
    const forked = new CheckpointSigner(SEED).sign({ ...body, root_hash: rootDigitChanged(lines[0]).match(/"root_hash":"([0-9a-f]{64})"/)![1] });
    write(path, [JSON.stringify(forked), ...lines.slice(1)]);
    const again = await startTestService(ENV, dataDir, { now: clock.now });
    try {
      const status = await pollUntil('the stored checkpoints checked', () => getJson(`${again.base}/status.json`), (r) => r.json.components.audit.proofs.status === 'fail');
      assert.equal(status.json.components.audit.reason, 'the log no longer matches checkpoint 5: records it covered were changed or lost');
      const refused = await getJson(`${again.base}/api/v1/audit/proof/3`);
      assert.deepEqual([refused.status, refused.json.code], [503, 'audit_proofs_unavailable']);
    } finally {
      await again.stop();
    }
  });
});
