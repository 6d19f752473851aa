// Fleet wallets judged on the same facts name one facts document: the log keeps it once (a line a page of facts.log,
// one field in Redis), and verification, replay and the facts export serve and check it for every record that names
// it, on the file and the Redis log; a byte changed in it fails every one of them (ARCHITECTURE.md "Recorded facts").
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { EXIT_REPRODUCED, runAuditReplay } from '../../../../src/tools/cli/audit-replay-command.js';
import { EXIT_HEALTHY, EXIT_TAMPERED, runAuditVerify } from '../../../../src/tools/cli/audit-verify-command.js';
import { OPEN_MARKET_MS } from '../../../support/manual-clock.js';
import { startRedisServer, type RedisServer } from '../../../support/redis-server.js';
import { getJson, postJson, sampleTrade, startTestService, type TestService } from '../../../support/service.js';

const RECORDS = 6;
/** Six wallets of a fleet, each judged once: the same window, P&L, tier and context, so the same own facts. */
const wallet = (n: number) => `0x${(0xf50 + n).toString(16).padStart(40, '0')}`;

async function cli(command: typeof runAuditVerify, args: string[]): Promise<{ status: number; out: string }> {
  let out = '';
  const status = await command(args, { stdout: { write: (text: string) => (out += text) }, stderr: { write: () => true, isTTY: false } } as never);
  return { status, out };
}

async function evaluateFleet(base: string): Promise<string[]> {
  for (let n = 1; n <= RECORDS; n++) {
    assert.equal((await postJson(`${base}/api/v1/analyze/free`, sampleTrade({ wallet: wallet(n), amount: n }))).status, 200);
  }
  const records = (await (await fetch(`${base}/api/v1/audit/export?from_seq=1&limit=${RECORDS}`)).text()).trim().split('\n');
  return records.map((line) => JSON.parse(line.slice(65)).facts_hash as string);
}

/** What both backends must show: one facts document for every record, served under each record's seq and checked for each. */
async function assertOneDocumentServesAll(service: TestService, hashes: string[]): Promise<void> {
  assert.equal(new Set(hashes).size, 1, 'every record names the one facts document');
  const page = await fetch(`${service.base}/api/v1/audit/facts?from_seq=1&limit=${RECORDS}`);
  assert.equal(page.status, 200);
  const own = (await page.text()).trim().split('\n').filter((line) => !line.includes('"kind":"'));
  assert.deepEqual(own.map((line) => line.split(' ').slice(0, 2).join(' ')), Array.from({ length: RECORDS }, (_, i) => `${i + 1} ${hashes[0]}`));
  assert.deepEqual((await getJson(`${service.base}/api/v1/audit/verify`)).json, { total: RECORDS, tampered: 0, healthy: true, records: [], first_broken_seq: null });
  const replayed = await cli(runAuditReplay, [service.base, '--json']);
  assert.equal(replayed.status, EXIT_REPRODUCED, replayed.out);
  assert.deepEqual([JSON.parse(replayed.out).records, JSON.parse(replayed.out).reproduced], [RECORDS, RECORDS]);
}

describe('one facts document named by many records, on the file log', () => {
  let service: TestService;
  let hashes: string[];
  before(async () => {
    service = await startTestService({ RATE_LIMITS: 'off', AUDIT_STORE: 'file' }, undefined, { now: () => OPEN_MARKET_MS });
    hashes = await evaluateFleet(service.base);
  });
  after(() => service.stop());

  it('is one line of facts.log, served and checked for every record by the service', async () => {
    const facts = readFileSync(join(service.dataDir, 'audit', 'facts.log'), 'utf8');
    assert.equal(facts.split('\n').filter((line) => line.includes(` ${hashes[0]} `)).length, 1);
    await assertOneDocumentServesAll(service, hashes);
  });

  it('verifies and replays from the data directory for every record', async () => {
    const verified = await cli(runAuditVerify, [service.dataDir, '--threads', '1', '--json']);
    assert.equal(verified.status, EXIT_HEALTHY, verified.out);
    const replayed = await cli(runAuditReplay, [service.dataDir, '--json']);
    assert.equal(replayed.status, EXIT_REPRODUCED, replayed.out);
    assert.deepEqual([JSON.parse(replayed.out).records, JSON.parse(replayed.out).reproduced], [RECORDS, RECORDS]);
  });

  it('changed by one byte, fails every record naming it, and heals once restored', async () => {
    const path = join(service.dataDir, 'audit', 'facts.log');
    const sound = readFileSync(path, 'utf8');
    writeFileSync(path, sound.replace('"windowCount":0', '"windowCount":1'));
    try {
      const report = (await getJson(`${service.base}/api/v1/audit/verify`)).json;
      assert.deepEqual(report.records.map((record: { seq: number; problem: string }) => [record.seq, record.problem]),
        Array.from({ length: RECORDS }, (_, i) => [i + 1, 'facts_mismatch']));
      assert.equal((await cli(runAuditVerify, [service.dataDir, '--threads', '1'])).status, EXIT_TAMPERED);
    } finally {
      writeFileSync(path, sound);
    }
    assert.equal((await getJson(`${service.base}/api/v1/audit/verify`)).json.healthy, true);
  });
});

describe('one facts document named by many records, on the Redis log', () => {
  let redisServer: RedisServer;
  let service: TestService;
  let hashes: string[];
  before(async () => {
    redisServer = await startRedisServer();
    service = await startTestService({ RATE_LIMITS: 'off', REDIS_URL: redisServer.url, AUDIT_STORE: 'redis' }, undefined, { now: () => OPEN_MARKET_MS });
    hashes = await evaluateFleet(service.base);
  });
  after(async () => {
    await service?.stop();
    await redisServer?.stop();
  });

  it('is one field of the facts hash, served and checked for every record by the service', async () => {
    const redis = new Redis(redisServer.url);
    try {
      assert.equal(await redis.hlen('tg:audit:facts'), 7 + 1 + RECORDS,
        'the seven shared documents (engine, policy, price, registry, safety, venue, and the context naming them), the one own document, and each record\'s outcome document (their amounts differ, so do their reasons)');
    } finally {
      redis.disconnect();
    }
    await assertOneDocumentServesAll(service, hashes);
  });
});
