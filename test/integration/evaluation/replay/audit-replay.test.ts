// Re-deriving verdicts from the facts kept beside their records: the facts export, `audit:replay` on
// a data directory, a log file and a running service, the golden log, a re-sealed forgery, and logs
// written before facts were kept.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ZERO_HASH } from '../../../../src/audit/record/audit-log.js';
import { parseLine, sealRecord } from '../../../../src/audit/record/record.js';
import { sha256Hex } from '../../../../src/audit/record/sha256.js';
import { EXIT_HEALTHY, runAuditVerify } from '../../../../src/tools/cli/audit-verify-command.js';
import { EXIT_DIFFERS, EXIT_ERROR, EXIT_REPRODUCED, runAuditReplay } from '../../../../src/tools/cli/audit-replay-command.js';
import { canonicalText, SCORING_TABLE_HASH } from '../../../../src/evaluation/recorded-facts.js';
import { ENGINE_VERSION } from '../../../../src/risk/scoring-table.js';
import { getJson, postJson, sampleTrade, startTestService, type TestService } from '../../../support/service.js';
import { OPEN_MARKET_MS } from '../../../support/manual-clock.js';
import { forgeDocument } from '../../../support/forged-log.js';

const GOLDEN = fileURLToPath(new URL('../../../../../test/golden/replay/', import.meta.url));
let running: TestService;

async function run(command: typeof runAuditReplay, args: string[]): Promise<{ status: number; out: string; json: any }> {
  let out = '';
  const io = { stdout: { write: (text: string) => (out += text) }, stderr: { write: () => true, isTTY: false } };
  const status = await command(args, io);
  let json: unknown = null;
  try {
    json = JSON.parse(out);
  } catch {
    // A text report.
  }
  return { status, out, json };
}

const wallet = (n: number) => `0x${(0xc00 + n).toString(16).padStart(40, '0')}`;

before(async () => {
  running = await startTestService({ RATE_LIMITS: 'off' }, undefined, { now: () => OPEN_MARKET_MS });
  const trades = [sampleTrade({ wallet: wallet(1), amount: 1 }), sampleTrade({ wallet: wallet(2), amount: 5 }), sampleTrade({ wallet: wallet(1), amount: 1, max_slippage_bps: 700 })];
  for (const trade of trades) assert.equal((await postJson(`${running.base}/api/v1/analyze/free`, trade)).status, 200);
});
after(() => running.stop());

describe('the facts behind each record', () => {
  it('are exported per record, each after the shared documents it names, and hash to the facts_hash the record carries', async () => {
    const lines = (await (await fetch(`${running.base}/api/v1/audit/export?from_seq=1&limit=3`)).text()).trim().split('\n');
    const response = await fetch(`${running.base}/api/v1/audit/facts?from_seq=1&limit=3`);
    assert.equal(response.headers.get('x-audit-next-seq'), '4');
    const facts = (await response.text()).trim().split('\n').map((line) => {
      const [seq, hash, text] = [line.slice(0, line.indexOf(' ')), line.slice(line.indexOf(' ') + 1, line.indexOf(' ') + 65), line.slice(line.indexOf(' ') + 66)];
      return { seq: Number(seq), hash, text };
    });
    // The three records share one context: seven shared documents, listed once, before the first record's facts; each
    // record's outcome document (format 3) just before its own facts, once however many records name it.
    const outcomes = lines.map((text) => parseLine(text).outcome_hash);
    const kinds = facts.map((line) => JSON.parse(line.text).kind ?? `own ${line.seq}`);
    assert.deepEqual(kinds.filter((kind) => kind !== 'outcome'), ['engine', 'policy', 'price', 'registry', 'safety', 'venue', 'context', 'own 1', 'own 2', 'own 3']);
    assert.deepEqual(facts.filter((line) => JSON.parse(line.text).kind === 'outcome').map((line) => line.hash), [...new Set(outcomes)]);
    const documents = new Map(facts.map((line) => [line.hash, line.text]));
    for (const line of facts) {
      assert.equal(createHash('sha256').update(line.text).digest('hex'), line.hash);
      assert.equal(canonicalText(JSON.parse(line.text)), line.text, 'stored in RFC 8785 form');
    }
    lines.forEach((text, i) => {
      const stored = parseLine(text);
      const own = facts.find((line) => line.seq === stored.seq && line.hash === stored.facts_hash)!;
      assert.equal(stored.format, 3);
      // The record's outcome is the document it names, kept beside its facts.
      const record = { ...stored, ...JSON.parse(documents.get(stored.outcome_hash!)!) };
      assert.equal(record.kind, 'outcome');
      const parsed = JSON.parse(own.text);
      // Format 3: the trade and the time are the record's request and ts, not kept again (a REST body holds every default).
      assert.equal(parsed.format, 3);
      assert.deepEqual([parsed.input.trade, parsed.input.nowMs], [undefined, undefined]);
      const context = JSON.parse(documents.get(parsed.uses.context)!);
      const price = JSON.parse(documents.get(context.uses.price)!);
      assert.equal(price.fact.usd, record.price_usd);
      assert.deepEqual(parsed.origins.tier, { basis: 'channel', channel: 'free' });
      assert.deepEqual(price.origin, { kind: 'default', price_usd: record.price_usd });
      assert.match(JSON.parse(documents.get(context.uses.engine)!).scoring_table_hash, /^[0-9a-f]{64}$/);
    });
    assert.equal((await getJson(`${running.base}/api/v1/audit/facts?limit=1001`)).status, 422);
  });

  it('replay from the service, the data directory and the log file: every verdict reproduced', async () => {
    for (const source of [running.base, running.dataDir, join(running.dataDir, 'audit', 'audit.log')]) {
      const replayed = await run(runAuditReplay, [source, '--json']);
      assert.equal(replayed.status, EXIT_REPRODUCED, replayed.out);
      assert.deepEqual([replayed.json.records, replayed.json.reproduced, replayed.json.differs], [3, 3, 0], source);
    }
    const one = await run(runAuditReplay, [running.base, '--seq', '2', '--json']);
    assert.deepEqual([one.json.records, one.json.reproduced], [1, 1]);
    const range = await run(runAuditReplay, [running.dataDir, '--from', '2', '--to', '3', '--json']);
    assert.deepEqual([range.json.records, range.json.reproduced], [2, 2]);
  });

  it('waits out the service\'s rate limit: a 429 slows a replay or a verification, it does not end it', async () => {
    // In front of the service, every audit read is refused once (429, Retry-After: 0) before it is served.
    const refused = new Set<string>();
    const proxy = createServer((request, response) => {
      const target = request.url ?? '/';
      if (target.startsWith('/api/v1/audit/') && !refused.has(target)) {
        refused.add(target);
        response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '0' }).end('{"detail":"Rate limit exceeded","code":"rate_limited"}');
        return;
      }
      fetch(`${running.base}${target}`).then(async (answer) => {
        response.writeHead(answer.status, Object.fromEntries(answer.headers)).end(Buffer.from(await answer.arrayBuffer()));
      }, () => response.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    try {
      const replayed = await run(runAuditReplay, [base, '--json']);
      assert.equal(replayed.status, EXIT_REPRODUCED, replayed.out);
      assert.deepEqual([replayed.json.records, replayed.json.reproduced], [3, 3]);
      let out = '';
      const verified = await runAuditVerify([base, '--threads', '1'], { stdout: { write: (text: string) => (out += text) }, stderr: { write: () => true } });
      assert.equal(verified, EXIT_HEALTHY, out);
      assert.ok(refused.size >= 3, [...refused].join('\n'));
    } finally {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it('refuses bad arguments and unreadable sources with exit status 2', async () => {
    assert.equal((await run(runAuditReplay, [running.base, '--from', '3', '--to', '2'])).status, EXIT_ERROR);
    assert.equal((await run(runAuditReplay, [running.base, '--seq', '1', '--from', '1'])).status, EXIT_ERROR);
    assert.equal((await run(runAuditReplay, [join(tmpdir(), 'no-such-guardrail-dir')])).status, EXIT_ERROR);
  });
});

describe('the golden log', () => {
  it('replays exactly: the engine still gives every recorded verdict on its recorded facts', async () => {
    const replayed = await run(runAuditReplay, [GOLDEN, '--json']);
    assert.equal(replayed.status, EXIT_REPRODUCED, replayed.out);
    assert.deepEqual([replayed.json.records, replayed.json.reproduced, replayed.json.rules_changed], [6, 6, 0]);
    assert.equal((await run(runAuditVerify, [GOLDEN])).status, EXIT_HEALTHY);
  });

  it('catches a recorded fact edited and every hash re-sealed, though the chain still verifies', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'guardrail-replay-'));
    cpSync(GOLDEN, dir, { recursive: true });
    forgeFact(join(dir, 'audit'), 2, (facts) => {
      // Record 2 was denied over the advisory floor; a lower price would have allowed it.
      facts.input.price.usd = 1;
      // The golden log was judged under an earlier engine, where a verdict that no longer follows reads as
      // rules_changed; the forged facts name today's rules, as facts written now would.
      facts.engine = { version: ENGINE_VERSION, scoring_table_hash: SCORING_TABLE_HASH };
    });
    assert.equal((await run(runAuditVerify, [dir])).status, EXIT_HEALTHY, 'the re-sealed chain verifies');
    const replayed = await run(runAuditReplay, [dir]);
    assert.equal(replayed.status, EXIT_DIFFERS, replayed.out);
    assert.match(replayed.out, /not reproduced {4}1/);
    assert.match(replayed.out, /seq 2 {2}verdict_differs: the engine gives another verdict on its facts; decision allow, recorded deny/);
  });

  it('catches facts that no longer hash to the record', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'guardrail-replay-'));
    cpSync(GOLDEN, dir, { recursive: true });
    const path = join(dir, 'audit', 'facts.log');
    writeFileSync(path, readFileSync(path, 'utf8').replace('"usd":350.25', '"usd":350.26'));
    const replayed = await run(runAuditReplay, [dir, '--json']);
    assert.equal(replayed.status, EXIT_DIFFERS);
    assert.equal(replayed.json.findings[0].problem, 'facts_mismatch');
  });
});

describe('the published scoring table', () => {
  it('is the table the records name: its hash in the methodology is the hash in every record\'s facts', async () => {
    const methodology = await (await fetch(`${running.base}/.well-known/methodology.md`)).text();
    const section = methodology.slice(methodology.indexOf('## Scoring table'));
    const table = JSON.parse(section.slice(section.indexOf('```json') + 7, section.indexOf('```', section.indexOf('```json') + 7)));
    const hash = createHash('sha256').update(canonicalText(table)).digest('hex');
    assert.ok(section.includes(hash), 'the methodology states the hash of the table it prints');
    // The records this service wrote name it in their engine document (the golden log keeps the table it was judged under).
    const facts = (await (await fetch(`${running.base}/api/v1/audit/facts?from_seq=1&limit=3`)).text()).trim().split('\n');
    const engines = facts.map((line) => JSON.parse(line.slice(line.indexOf('{')))).filter((document) => document.kind === 'engine');
    assert.deepEqual(engines.map((engine) => [engine.version, engine.scoring_table_hash]), [[ENGINE_VERSION, hash]]);
  });
});

describe('a log begun before facts were kept', () => {
  it('keeps verifying, and replay counts its old records apart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'guardrail-replay-'));
    mkdirSync(join(dir, 'audit'));
    let head = { seq: 0, hash: ZERO_HASH };
    const lines: Buffer[] = [];
    for (let seq = 1; seq <= 3; seq++) {
      const entry = { wallet: wallet(9), channel: 'free' as const, request: { amount: seq }, decision: 'allow' as const, risk_score: 8, reasons: [], tier: 1, price_usd: 350.25, price_source: 'fallback_default' };
      const { record, line } = sealRecord(entry, seq, OPEN_MARKET_MS, head.hash, seq === 1 ? ZERO_HASH : head.hash, sha256Hex);
      head = { seq, hash: record.hash };
      lines.push(line);
    }
    writeFileSync(join(dir, 'audit', 'audit.log'), Buffer.concat(lines));
    const service = await startTestService({ RATE_LIMITS: 'off' }, dir, { now: () => OPEN_MARKET_MS });
    try {
      assert.equal((await postJson(`${service.base}/api/v1/analyze/free`, sampleTrade({ wallet: wallet(9), amount: 1 }))).status, 200);
      const verified = (await getJson(`${service.base}/api/v1/audit/verify`)).json;
      assert.deepEqual([verified.total, verified.healthy], [4, true]);
      const replayed = await run(runAuditReplay, [service.base, '--json']);
      assert.equal(replayed.status, EXIT_REPRODUCED, replayed.out);
      assert.deepEqual([replayed.json.records, replayed.json.without_facts, replayed.json.reproduced], [4, 3, 1]);
    } finally {
      await service.stop();
    }
  });
});

/**
 * Edits record `seq`'s facts, then seals everything again as a forger with write access would:
 * the facts' hash into the record, the record's hash, and every later link to a changed hash.
 */
function forgeFact(auditDir: string, seq: number, edit: (facts: any) => void): void {
  forgeDocument(auditDir, (line) => line.startsWith(`${seq} `), (facts) => (edit(facts), facts), (body, _old, newHash) =>
    (body.seq === seq ? { facts_hash: newHash } : {}));
}
