// Format 3 records (ARCHITECTURE.md "Audit record"): a verdict's reasons and price are one outcome document kept beside
// its facts and named by `outcome_hash`. Listings give them back resolved beside the stored fields; verification counts
// a record whose outcome document is changed or lost as tampered, on the file and the Redis log; replay compares the
// outcome it re-derives; and a log of format 2 records written before keeps verifying, listing and replaying.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { canonicalJson, parseLine, type AuditRecordBody } from '../../../../src/audit/record/record.js';
import { sha256Hex } from '../../../../src/audit/record/sha256.js';
import { canonicalText } from '../../../../src/evaluation/recorded-facts.js';
import { EXIT_DIFFERS, EXIT_REPRODUCED, runAuditReplay } from '../../../../src/tools/cli/audit-replay-command.js';
import { EXIT_HEALTHY, EXIT_TAMPERED, runAuditVerify } from '../../../../src/tools/cli/audit-verify-command.js';
import { OPEN_MARKET_MS } from '../../../support/manual-clock.js';
import { startRedisServer, type RedisServer } from '../../../support/redis-server.js';
import { SAMPLE_REGISTRY, getJson, postJson, sampleTrade, startTestService, type TestService } from '../../../support/service.js';
import { startServiceProcess } from '../../../support/service-process.js';
import { forgeDocument } from '../../../support/forged-log.js';

const GOLDEN_FORMAT_2 = fileURLToPath(new URL('../../../../../test/golden/replay/', import.meta.url));
/** Two fleet wallets judged on the same trade twice each: the four verdicts share one outcome. */
const wallet = (n: number) => `0x${(0xd30 + n).toString(16).padStart(40, '0')}`;
const WALLETS = [wallet(1), wallet(2), wallet(1), wallet(2)];
const OUTCOME_FIELDS = ['reasons', 'price_usd', 'price_source'] as const;

type Verdict = { audit_seq: number; audit_hash: string; reasons: string[]; price_usd: number; price_source: string };

async function cli(command: typeof runAuditVerify, args: string[]): Promise<{ status: number; out: string }> {
  let out = '';
  const status = await command(args, { stdout: { write: (text: string) => (out += text) }, stderr: { write: () => true, isTTY: false } } as never);
  return { status, out };
}

async function evaluate(base: string): Promise<Verdict[]> {
  const verdicts: Verdict[] = [];
  for (const w of WALLETS) {
    const answer = await postJson(`${base}/api/v1/analyze/free`, sampleTrade({ wallet: w, amount: 1 }));
    assert.equal(answer.status, 200, answer.text);
    verdicts.push(answer.json as Verdict);
  }
  return verdicts;
}

/** A listed record re-hashed as docs/audit-records.md says: `hash`, `chain` and the resolved outcome dropped. */
function rehash(listed: Record<string, unknown>): string {
  const { hash: _hash, chain: _chain, ...stored } = listed;
  if (stored.format === 3) for (const name of OUTCOME_FIELDS) delete stored[name];
  return sha256Hex(canonicalJson(stored as unknown as AuditRecordBody));
}

/** What both backends show: each listed record is its stored fields and, beside them, the outcome its verdict answered. */
async function assertListed(base: string, verdicts: Verdict[]): Promise<void> {
  const global = (await getJson(`${base}/api/v1/audit/global?limit=${verdicts.length}`)).json.records.reverse();
  const own = (await getJson(`${base}/api/v1/audit/wallet/${wallet(1)}`)).json.records.reverse();
  assert.deepEqual(own, global.filter((record: { wallet: string }) => record.wallet === wallet(1)));
  global.forEach((record: Record<string, unknown>, i: number) => {
    const verdict = verdicts[i];
    assert.deepEqual([record.seq, record.hash, record.format], [verdict.audit_seq, verdict.audit_hash, 3]);
    assert.deepEqual(OUTCOME_FIELDS.map((name) => record[name]), OUTCOME_FIELDS.map((name) => verdict[name]));
    assert.equal(rehash(record), record.hash);
    assert.equal((record.request as Record<string, unknown>).wallet, undefined, 'the record\'s wallet is the request\'s');
  });
  assert.ok(verdicts[0].reasons.length > 0, 'the trade draws reasons');
}

describe('format 3 records on the file log', () => {
  let service: TestService;
  let verdicts: Verdict[];
  let factsPath: string;
  let sound: string;
  before(async () => {
    service = await startTestService({ RATE_LIMITS: 'off', AUDIT_STORE: 'file' }, undefined, { now: () => OPEN_MARKET_MS });
    verdicts = await evaluate(service.base);
    factsPath = join(service.dataDir, 'audit', 'facts.log');
    sound = readFileSync(factsPath, 'utf8');
  });
  after(() => service.stop());

  it('store the outcome once, as a document named by its hash, and list each record with its reasons and price beside it', async () => {
    const lines = readFileSync(join(service.dataDir, 'audit', 'audit.log'), 'utf8').trim().split('\n');
    const stored = lines.map((line) => JSON.parse(line.slice(65)));
    for (const body of stored) for (const name of OUTCOME_FIELDS) assert.equal(body[name], undefined, 'the record does not hold its outcome');
    assert.equal(new Set(stored.map((body) => body.outcome_hash)).size, 1);
    const documents = sound.trim().split('\n').filter((line) => line.includes('"kind":"outcome"'));
    assert.equal(documents.length, 1, 'kept once for the four records that name it');
    const text = documents[0].slice(documents[0].indexOf('{'));
    const { reasons, price_usd, price_source } = verdicts[0];
    assert.equal(text, canonicalText({ kind: 'outcome', price_source, price_usd, reasons }));
    assert.equal(createHash('sha256').update(text).digest('hex'), stored[0].outcome_hash);
    await assertListed(service.base, verdicts);
  });

  it('count a record whose outcome document changed, or is lost, as tampered, to /audit/verify and audit:verify; both heal once restored', async () => {
    const recordHashes = verdicts.map((verdict) => verdict.audit_hash);
    writeFileSync(factsPath, sound.replace('"kind":"outcome","price_source":"fallback_default","price_usd":350.25', '"kind":"outcome","price_source":"fallback_default","price_usd":350.26'));
    assert.deepEqual((await getJson(`${service.base}/api/v1/audit/verify`)).json, {
      total: 4, tampered: 4, healthy: false, first_broken_seq: 1,
      records: recordHashes.map((hash, i) => ({ seq: i + 1, hash, problem: 'outcome_mismatch', location: 'facts.log' })),
    });
    const changed = await cli(runAuditVerify, [service.dataDir, '--threads', '1']);
    assert.equal(changed.status, EXIT_TAMPERED, changed.out);
    assert.ok(changed.out.includes(`first broken seq  1 (outcome mismatch: the outcome document kept for it does not hash to its outcome_hash, in ${factsPath})`), changed.out);

    writeFileSync(factsPath, sound.split('\n').filter((line) => !line.includes('"kind":"outcome"')).join('\n'));
    assert.deepEqual((await getJson(`${service.base}/api/v1/audit/verify`)).json.records,
      recordHashes.map((hash, i) => ({ seq: i + 1, hash, problem: 'outcome_missing', location: 'facts.log' })));
    const lost = await cli(runAuditVerify, [service.dataDir, '--threads', '1', '--json']);
    assert.equal(lost.status, EXIT_TAMPERED, lost.out);
    assert.deepEqual(JSON.parse(lost.out).problems.map((problem: { problem: string }) => problem.problem), Array(4).fill('outcome_missing'));

    writeFileSync(factsPath, sound);
    assert.deepEqual((await getJson(`${service.base}/api/v1/audit/verify`)).json, { total: 4, tampered: 0, healthy: true, records: [], first_broken_seq: null });
    assert.equal((await cli(runAuditVerify, [service.dataDir, '--threads', '1'])).status, EXIT_HEALTHY);
  });

  it('a service started afresh on the log reads each outcome from facts.log to list it; a lost one is a 503 naming the record', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'guardrail-outcome-'));
    const copy = () => cpSync(join(service.dataDir, 'audit'), join(dir, 'audit'), { recursive: true, filter: (path) => !path.includes('index') && !path.includes('checkpoints') });
    const start = () => startServiceProcess({ PORT: '0', DATA_DIR: dir, REGISTRY_FILE: SAMPLE_REGISTRY, WORKERS: '1', REQUEST_LOG: 'off', RATE_LIMITS: 'off', AUDIT_FSYNC: 'off' });
    try {
      copy();
      const fresh = await start();
      try {
        await assertListed(fresh.base, verdicts);
      } finally {
        await fresh.stop();
      }
      rmSync(dir, { recursive: true, force: true });
      copy();
      const factsCopy = join(dir, 'audit', 'facts.log');
      writeFileSync(factsCopy, sound.split('\n').filter((line) => !line.includes('"kind":"outcome"')).join('\n'));
      const damaged = await start();
      try {
        const refused = await getJson(`${damaged.base}/api/v1/audit/wallet/${wallet(2)}`);
        assert.equal(refused.status, 503);
        assert.equal(refused.json.code, 'audit_facts_damaged');
        assert.match(refused.json.detail, /audit record 4 names the outcome document [0-9a-f]{64}, which is not kept in facts\.log, so its reasons and price cannot be listed; restore facts\.log from a copy/);
        assert.equal((await getJson(`${damaged.base}/api/v1/audit/verify`)).json.tampered, 4);
      } finally {
        await damaged.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('replay re-derives the outcome: reproduced as kept, and an outcome forged with every hash re-sealed is a verdict that differs', async () => {
    const replayed = await cli(runAuditReplay, [service.base, '--json']);
    assert.equal(replayed.status, EXIT_REPRODUCED, replayed.out);
    assert.deepEqual([JSON.parse(replayed.out).records, JSON.parse(replayed.out).reproduced], [4, 4]);
    const dir = mkdtempSync(join(tmpdir(), 'guardrail-outcome-'));
    try {
      cpSync(join(service.dataDir, 'audit'), join(dir, 'audit'), { recursive: true, filter: (path) => !path.includes('index') && !path.includes('checkpoints') });
      forgeOutcome(join(dir, 'audit'), (outcome) => ({ ...outcome, reasons: [] }));
      assert.equal((await cli(runAuditVerify, [dir, '--threads', '1'])).status, EXIT_HEALTHY, 'the re-sealed chain verifies');
      const forged = await cli(runAuditReplay, [dir]);
      assert.equal(forged.status, EXIT_DIFFERS, forged.out);
      assert.match(forged.out, /seq 1 {2}verdict_differs: the engine gives another verdict on its facts; reasons \[.+\], recorded \[\]/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('format 3 records on the Redis log', () => {
  let redisServer: RedisServer;
  let service: TestService;
  let verdicts: Verdict[];
  before(async () => {
    redisServer = await startRedisServer();
    service = await startTestService({ RATE_LIMITS: 'off', REDIS_URL: redisServer.url, AUDIT_STORE: 'redis' }, undefined, { now: () => OPEN_MARKET_MS });
    verdicts = await evaluate(service.base);
  });
  after(async () => {
    await service?.stop();
    await redisServer?.stop();
  });

  it('list with their outcome, and a changed or lost outcome field of the facts hash is tampering that heals once restored', async () => {
    await assertListed(service.base, verdicts);
    const redis = new Redis(redisServer.url);
    try {
      const [line] = (await (await fetch(`${service.base}/api/v1/audit/export?from_seq=1&limit=1`)).text()).trim().split('\n');
      const named = parseLine(line).outcome_hash!;
      const text = (await redis.hget('tg:audit:facts', named))!;
      const problems = async () => (await getJson(`${service.base}/api/v1/audit/verify`)).json.records.map((record: { seq: number; problem: string }) => [record.seq, record.problem]);
      await redis.hset('tg:audit:facts', named, text.replace('350.25', '350.26'));
      assert.deepEqual(await problems(), [1, 2, 3, 4].map((seq) => [seq, 'outcome_mismatch']));
      await redis.hdel('tg:audit:facts', named);
      assert.deepEqual(await problems(), [1, 2, 3, 4].map((seq) => [seq, 'outcome_missing']));
      await redis.hset('tg:audit:facts', named, text);
      assert.deepEqual(await problems(), []);
    } finally {
      redis.disconnect();
    }
    const replayed = await cli(runAuditReplay, [service.base, '--json']);
    assert.equal(replayed.status, EXIT_REPRODUCED, replayed.out);
  });
});

describe('a log of format 2 records written before', () => {
  let service: TestService;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'guardrail-format-2-'));
    cpSync(GOLDEN_FORMAT_2, dir, { recursive: true });
    service = await startTestService({ RATE_LIMITS: 'off' }, dir, { now: () => OPEN_MARKET_MS });
  });
  after(() => service.stop());

  it('keeps verifying, listing as stored and replaying, with format 3 records appended after it', async () => {
    const verdict = (await postJson(`${service.base}/api/v1/analyze/free`, sampleTrade({ wallet: wallet(3), amount: 1 }))).json as Verdict;
    assert.equal(verdict.audit_seq, 7);
    assert.deepEqual((await getJson(`${service.base}/api/v1/audit/verify`)).json, { total: 7, tampered: 0, healthy: true, records: [], first_broken_seq: null });
    const listed = (await getJson(`${service.base}/api/v1/audit/global?limit=7`)).json.records.reverse();
    const golden = readFileSync(join(GOLDEN_FORMAT_2, 'audit', 'audit.log'), 'utf8').trim().split('\n');
    // Format 2 records list exactly as stored, their outcome in their own bytes.
    golden.forEach((line, i) => assert.deepEqual(listed[i], { ...JSON.parse(line.slice(65)), hash: line.slice(0, 64) }));
    assert.deepEqual([listed[6].format, listed[6].prev_hash, listed[6].reasons], [3, golden[5].slice(0, 64), verdict.reasons]);
    for (const record of listed) assert.equal(rehash(record), record.hash);
    const replayed = await cli(runAuditReplay, [service.base, '--json']);
    assert.equal(replayed.status, EXIT_REPRODUCED, replayed.out);
    assert.deepEqual([JSON.parse(replayed.out).records, JSON.parse(replayed.out).reproduced], [7, 7]);
    assert.equal((await cli(runAuditVerify, [service.dataDir, '--threads', '1'])).status, EXIT_HEALTHY);
  });
});

/** Edits the outcome document, then re-seals every record naming it, and every later link, as a forger with write access would. */
function forgeOutcome(auditDir: string, edit: (outcome: Record<string, unknown>) => Record<string, unknown>): void {
  forgeDocument(auditDir, (line) => line.includes('"kind":"outcome"'), edit, (body, oldHash, newHash) =>
    (body.outcome_hash === oldHash ? { outcome_hash: newHash } : {}));
}
