// The file log replaced or truncated under the running service: appends stop within about a second, evaluations fail closed, the status says why.
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, renameSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { getJson, postJson, sampleTrade, startTestService, type TestService } from '../../../support/service.js';
import { pollUntil } from '../../../support/wait-until.js';

const evaluate = (service: TestService) => postJson(`${service.base}/api/v1/analyze/free`, sampleTrade({ amount: 1 }));

/** Evaluates until one fails closed (the watch looks every 250 ms); returns that answer. */
async function untilRefused(service: TestService) {
  return pollUntil('an evaluation that fails closed', () => evaluate(service), (answer) => answer.status !== 200, 5_000, 50);
}

async function assertStoppedBecause(service: TestService, why: RegExp, seqBefore: number): Promise<void> {
  const refused = await untilRefused(service);
  assert.equal(refused.status, 503);
  assert.deepEqual([refused.json.decision, refused.json.code, refused.json.audit_seq], ['deny', 'audit_unavailable', null]);
  const status = (await getJson(`${service.base}/status.json`)).json;
  assert.equal(status.components.audit.status, 'down');
  assert.match(status.components.audit.reason, why);
  assert.ok(status.reasons.some((reason: string) => reason.startsWith('audit: ')), status.reasons.join('; '));
  const health = await getJson(`${service.base}/healthz`);
  assert.equal(health.status, 200, 'liveness stays 200');
  assert.equal(health.json.status, 'degraded');
  assert.match(health.json.reason, why);
  const log = readFileSync(join(service.dataDir, 'audit', 'audit.log'), 'utf8');
  assert.ok(!log.includes('\0'), 'nothing was written at a stale offset');
  assert.ok(log.trim().split('\n').length <= seqBefore, 'no record was appended after the change');
}

describe('the file log changed under the running service', () => {
  it('notices a log replaced by another file (as sed -i does) and stops taking appends', async () => {
    const service = await startTestService({ RATE_LIMITS: 'off' });
    try {
      for (let i = 0; i < 5; i++) assert.equal((await evaluate(service)).status, 200);
      const file = join(service.dataDir, 'audit', 'audit.log');
      copyFileSync(file, `${file}.edited`);
      renameSync(`${file}.edited`, file);
      await assertStoppedBecause(service, /audit\.log was replaced/, 5);
    } finally {
      await service.stop();
    }
  });

  it('notices a log truncated in place and never writes past its new end', async () => {
    const service = await startTestService({ RATE_LIMITS: 'off' });
    try {
      for (let i = 0; i < 5; i++) assert.equal((await evaluate(service)).status, 200);
      const file = join(service.dataDir, 'audit', 'audit.log');
      const text = readFileSync(file);
      truncateSync(file, text.lastIndexOf(0x0a, text.length - 2) + 1);
      await assertStoppedBecause(service, /audit\.log was truncated/, 4);
    } finally {
      await service.stop();
    }
  });
});
