// The audit operations over real HTTP on the embedded (file) log: listings, verification, export, limits, tampering.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EXIT_HEALTHY, runAuditVerify } from '../../../../src/tools/cli/audit-verify-command.js';
import { REHASH_EXAMPLE } from '../../../../src/channels/documents/rehash-example.js';
import { renderMethodology } from '../../../../src/channels/documents/methodology.js';
import { AuditGlobalResponse, AuditVerifyGlobalResponse, AuditVerifyResponse, AuditWalletResponse } from '../../../../src/schemas/resources.js';
import { compileValidator } from '../../../../src/schemas/validator.js';
import { getJson, postJson, sampleTrade, startTestService, type TestService } from '../../../support/service.js';
import { editAndRehash, flipByte } from '../../../support/audit-verify-chains.js';

// Tuesday 17 November 2026, 10:00 in New York: the NYSE regular session is open.
const OPEN_MARKET = Date.UTC(2026, 10, 17, 15, 0, 0);
const WALLET_1 = '0xabcdef0000000000000000000000000000000001';
const WALLET_2 = '0xabcdef0000000000000000000000000000000002';
const WALLET_3 = '0xabcdef0000000000000000000000000000000003';
const HEALTHY = { tampered: 0, healthy: true, records: [], first_broken_seq: null };

let running: TestService;

async function evaluate(target: TestService, wallet: string): Promise<{ seq: number; hash: string }> {
  const response = await postJson(`${target.base}/api/v1/analyze/free`, sampleTrade({ wallet, amount: 1 }));
  assert.equal(response.status, 200, response.text);
  return { seq: response.json.audit_seq, hash: response.json.audit_hash };
}

function storedLines(target: TestService): Buffer[] {
  const text = readFileSync(join(target.dataDir, 'audit', 'audit.log'));
  const lines: Buffer[] = [];
  for (let start = 0; start < text.length;) {
    const end = text.indexOf(0x0a, start);
    lines.push(text.subarray(start, end));
    start = end + 1;
  }
  return lines;
}

const conforms = (schema: Parameters<typeof compileValidator>[0], body: unknown) => compileValidator(schema, 'body')(structuredClone(body)).ok;

before(async () => {
  running = await startTestService({ RATE_LIMITS: 'off' }, undefined, { now: () => OPEN_MARKET });
  for (const wallet of [WALLET_1, WALLET_2, WALLET_1, WALLET_3, WALLET_1, WALLET_2]) await evaluate(running, wallet);
});
after(() => running.stop());

describe('audit listings', () => {
  it('lists the global log newest first, each record the stored JSON plus its hash and its outcome resolved beside it', async () => {
    const response = await getJson(`${running.base}/api/v1/audit/global`);
    assert.equal(response.status, 200);
    assert.equal(response.json.count, 6);
    assert.deepEqual(response.json.records.map((r: { seq: number }) => r.seq), [6, 5, 4, 3, 2, 1]);
    const stored = storedLines(running).reverse();
    // Format 3: the outcome is the document `outcome_hash` names, kept beside the facts (docs/audit-records.md).
    const documents = new Map(readFileSync(join(running.dataDir, 'audit', 'facts.log'), 'utf8').trim().split('\n').map((line) => [line.split(' ')[1], line.slice(line.indexOf('{'))]));
    response.json.records.forEach((record: Record<string, unknown>, i: number) => {
      const { hash, reasons, price_usd, price_source, ...body } = record;
      assert.equal(hash, stored[i].toString('latin1', 0, 64));
      assert.deepEqual(body, JSON.parse(stored[i].toString('utf8', 65)));
      assert.equal(body.format, 3);
      assert.deepEqual({ kind: 'outcome', price_source, price_usd, reasons }, JSON.parse(documents.get(body.outcome_hash as string)!));
    });
    assert.ok(conforms(AuditGlobalResponse, response.json));
    assert.equal((await getJson(`${running.base}/api/v1/audit/global?limit=2`)).json.count, 2);
  });

  it('lists one wallet, the address compared lower-case', async () => {
    const response = await getJson(`${running.base}/api/v1/audit/wallet/${WALLET_1.toUpperCase().replace('0X', '0x')}?limit=2`);
    assert.equal(response.status, 200);
    assert.equal(response.json.wallet, WALLET_1);
    assert.deepEqual(response.json.records.map((r: { seq: number; wallet: string }) => [r.seq, r.wallet]), [[5, WALLET_1], [3, WALLET_1]]);
    assert.equal(response.json.count, 2);
    assert.ok(conforms(AuditWalletResponse, response.json));
  });

  it('refuses a limit outside 1-1000 and a malformed wallet with 422 in the FastAPI shape', async () => {
    const low = await getJson(`${running.base}/api/v1/audit/global?limit=0`);
    assert.equal(low.status, 422);
    assert.deepEqual(low.json, {
      detail: [{ loc: ['query', 'limit'], type: 'greater_than_equal', msg: 'Input should be greater than or equal to 1', ctx: { ge: 1 }, input: 0 }],
      code: 'validation_failed',
    });
    const high = await getJson(`${running.base}/api/v1/audit/verify?limit=1001`);
    assert.deepEqual(high.json.detail.map((d: { type: string }) => d.type), ['less_than_equal']);
    const both = await getJson(`${running.base}/api/v1/audit/verify/0x12?limit=abc`);
    assert.equal(both.status, 422);
    assert.deepEqual(both.json, {
      detail: [
        { loc: ['path', 'wallet'], type: 'string_too_short', msg: 'String should have at least 42 characters', ctx: { min_length: 42 }, input: '0x12' },
        { loc: ['query', 'limit'], type: 'int_parsing', msg: 'Input should be a valid integer, unable to parse string as an integer', input: 'abc' },
      ],
      code: 'validation_failed',
    });
  });
});

describe('audit verification', () => {
  it('verifies the global chain', async () => {
    const response = await getJson(`${running.base}/api/v1/audit/verify`);
    assert.equal(response.status, 200);
    assert.deepEqual(response.json, { total: 6, ...HEALTHY });
    assert.ok(conforms(AuditVerifyGlobalResponse, response.json));
    assert.deepEqual((await getJson(`${running.base}/api/v1/audit/verify?limit=2`)).json, { total: 2, ...HEALTHY });
  });

  it("verifies one wallet's chain", async () => {
    const response = await getJson(`${running.base}/api/v1/audit/verify/${WALLET_1}?limit=2`);
    assert.deepEqual(response.json, { wallet: WALLET_1, total: 2, ...HEALTHY });
    assert.ok(conforms(AuditVerifyResponse, response.json));
    assert.deepEqual((await getJson(`${running.base}/api/v1/audit/verify/${WALLET_3}`)).json, { wallet: WALLET_3, total: 1, ...HEALTHY });
    const stranger = `0x${'9'.repeat(40)}`;
    assert.deepEqual((await getJson(`${running.base}/api/v1/audit/verify/${stranger}`)).json, { wallet: stranger, total: 0, ...HEALTHY });
  });

  it('exports the stored lines, byte for byte, with the head and the next page', async () => {
    const response = await getJson(`${running.base}/api/v1/audit/export?from_seq=2&limit=3`);
    assert.equal(response.status, 200);
    assert.equal(response.text, storedLines(running).slice(1, 4).map((l) => `${l.toString('utf8')}\n`).join(''));
    assert.equal(response.headers.get('x-audit-head-seq'), '6');
    assert.equal(response.headers.get('x-audit-head-hash'), storedLines(running)[5].toString('latin1', 0, 64));
    assert.equal(response.headers.get('x-audit-next-seq'), '5');
  });

  it('pages the export and the facts from the first record when from_seq and limit are left out', async () => {
    const lines = await getJson(`${running.base}/api/v1/audit/export`);
    assert.equal(lines.status, 200);
    assert.equal(lines.text, storedLines(running).map((l) => `${l.toString('utf8')}\n`).join(''));
    assert.equal(lines.headers.get('x-audit-next-seq'), '7');
    const facts = await getJson(`${running.base}/api/v1/audit/facts`);
    assert.equal(facts.status, 200);
    // Each record's own facts, in seq order, each after the shared documents it is the first to name, each listed once.
    const listed = facts.text.trim().split('\n').map((line) => ({
      seq: Number(line.split(' ')[0]), hash: line.split(' ')[1], kind: JSON.parse(line.slice(line.indexOf('{'))).kind as string | undefined,
    }));
    assert.deepEqual(listed.filter((line) => line.kind === undefined).map((line) => line.seq), [1, 2, 3, 4, 5, 6]);
    assert.deepEqual(listed.map((line) => line.seq), listed.map((line) => line.seq).sort((a, b) => a - b));
    const shared = listed.filter((line) => line.kind !== undefined);
    assert.equal(new Set(shared.map((line) => line.hash)).size, shared.length);
    assert.ok(listed.some((line) => line.kind === 'context'));
    assert.equal(facts.headers.get('x-audit-next-seq'), '7');
  });

  it('lets the bulk job verify the whole chain through the service', async () => {
    let stdout = '';
    const status = await runAuditVerify([running.base, '--threads', '1'], { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: () => true } });
    assert.equal(status, EXIT_HEALTHY, stdout);
    assert.match(stdout, /records checked {3}6\n/);
  });

  it('publishes a re-hash recipe whose Node example checks what the listing returns', async () => {
    const example = renderMethodology(running.service.config).match(/```js\n([\s\S]*?)```/)?.[1];
    assert.ok(example, 'the methodology carries a js example');
    assert.ok(example.trim().split('\n').length <= 10, 'ten lines at most');
    assert.equal(example, REHASH_EXAMPLE);
    assert.ok(readFileSync(new URL('../../../../../docs/audit-records.md', import.meta.url), 'utf8').includes(`\`\`\`js\n${REHASH_EXAMPLE}\`\`\``), 'docs/audit-records.md prints it too');
    const listing = (await getJson(`${running.base}/api/v1/audit/global?limit=1000`)).text;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', example], { input: listing, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(run.stdout.trim().split('\n'), [1, 2, 3, 4, 5, 6].map((seq) => `${seq} hash ok link ok`));
    const forged = JSON.parse(listing);
    forged.records[2].risk_score += 1;
    const caught = spawnSync(process.execPath, ['--input-type=module', '-e', example], { input: JSON.stringify(forged), encoding: 'utf8' });
    assert.match(caught.stdout, /^4 HASH MISMATCH link ok$/m);
  });
});

describe('audit verification of a tampered file log', () => {
  it('finds a record flipped at rest and one edited and re-hashed, after a restart', async () => {
    const target = await startTestService({ RATE_LIMITS: 'off' }, undefined, { now: () => OPEN_MARKET });
    for (let i = 0; i < 8; i++) await evaluate(target, [WALLET_1, WALLET_2][i % 2]);
    await target.stop(false);
    const file = join(target.dataDir, 'audit', 'audit.log');
    writeFileSync(file, Buffer.concat(editAndRehash(flipByte(storedLines(target), 2), 5).flatMap((l) => [l, Buffer.from('\n')])));
    const again = await startTestService({ RATE_LIMITS: 'off' }, target.dataDir, { now: () => OPEN_MARKET });
    try {
      const response = await getJson(`${again.base}/api/v1/audit/verify`);
      const stored = storedLines(again);
      assert.deepEqual(response.json, {
        total: 8, tampered: 2, healthy: false, first_broken_seq: 2,
        records: [
          { seq: 2, hash: stored[1].toString('latin1', 0, 64), problem: 'hash_mismatch' },
          { seq: 6, hash: stored[5].toString('latin1', 0, 64), problem: 'broken_link' },
        ],
      });
      const wallet = await getJson(`${again.base}/api/v1/audit/verify/${WALLET_1}`);
      assert.deepEqual([wallet.json.healthy, wallet.json.first_broken_seq], [false, 7], 'seq 5 is WALLET_1, and so is 7');
    } finally {
      await again.stop();
    }
  });

  it('finds a tail cut from under the running service against its head', async () => {
    const target = await startTestService({ RATE_LIMITS: 'off' }, undefined, { now: () => OPEN_MARKET });
    try {
      for (let i = 0; i < 5; i++) await evaluate(target, WALLET_3);
      const stored = storedLines(target);
      truncateSync(join(target.dataDir, 'audit', 'audit.log'), stored.slice(0, 3).reduce((n, l) => n + l.length + 1, 0));
      const response = await getJson(`${target.base}/api/v1/audit/verify`);
      assert.deepEqual(response.json, {
        total: 3, tampered: 2, healthy: false, first_broken_seq: 4, records: [{ seq: 4, hash: null, problem: 'truncated' }],
      });
    } finally {
      await target.stop();
    }
  });
});

describe('audit rate limits', () => {
  it('limits listing and verification per IP, each in its own bucket', async () => {
    const target = await startTestService({ RATE_LIMIT_IP_AUDIT_LIST: '1', RATE_LIMIT_IP_AUDIT_VERIFY: '2' }, undefined, { now: () => OPEN_MARKET });
    try {
      assert.equal((await getJson(`${target.base}/api/v1/audit/global`)).status, 200);
      const listed = await getJson(`${target.base}/api/v1/audit/wallet/${WALLET_1}`);
      assert.equal(listed.status, 429);
      assert.deepEqual(listed.json, { detail: 'Rate limit exceeded: 1 requests per 60 seconds; retry after 60 s', code: 'rate_limited' });
      assert.equal(listed.headers.get('retry-after'), '60');
      assert.equal((await getJson(`${target.base}/api/v1/audit/verify`)).status, 200);
      assert.equal((await getJson(`${target.base}/api/v1/audit/verify/${WALLET_1}`)).status, 200);
      assert.equal((await getJson(`${target.base}/api/v1/audit/verify`)).status, 429);
    } finally {
      await target.stop();
    }
  });
});
