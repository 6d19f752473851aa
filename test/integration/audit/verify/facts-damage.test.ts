// One byte changed in facts.log under a running service: /audit/verify counts the record as tampered and names the
// file, `audit:verify` on the data directory exits 1 naming its path, the facts export refuses the damaged page
// instead of serving the edited line, and all of it heals once the file is restored. A byte changed in a shared
// document (ARCHITECTURE.md "Recorded facts") is tampering for every record whose facts name it.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EXIT_HEALTHY, EXIT_TAMPERED, runAuditVerify } from '../../../../src/tools/cli/audit-verify-command.js';
import { getJson, postJson, sampleTrade, startTestService, type TestService } from '../../../support/service.js';
import { OPEN_MARKET_MS } from '../../../support/manual-clock.js';

let running: TestService;
let factsPath: string;
let sound: string;

async function cli(args: string[]): Promise<{ status: number; out: string }> {
  let out = '';
  const status = await runAuditVerify([...args, '--threads', '1'], { stdout: { write: (text: string) => (out += text) }, stderr: { write: () => true } });
  return { status, out };
}

/** The stored hash of record `seq` (line `seq` of audit.log). */
function recordHash(seq: number): string {
  return readFileSync(join(running.dataDir, 'audit', 'audit.log'), 'latin1').split('\n')[seq - 1].slice(0, 64);
}

/** The facts_hash record `seq` names. */
function factsHash(seq: number): string {
  return /"facts_hash":"([0-9a-f]{64})"/.exec(readFileSync(join(running.dataDir, 'audit', 'audit.log'), 'latin1').split('\n')[seq - 1])![1];
}

/** The index in facts.log of record `seq`'s own facts line. */
function ownLine(seq: number): number {
  return sound.split('\n').findIndex((line) => line.startsWith(`${seq} ${factsHash(seq)} `));
}

/** The index in facts.log of the shared document of this kind. */
function sharedLine(kind: string): number {
  return sound.split('\n').findIndex((line) => line.includes(`"kind":"${kind}"`));
}

/** facts.log with one byte of line `index` changed: after `after` in its JSON, or in the hash it is listed under (`after` null). */
function damageLine(index: number, after: string | null): void {
  const lines = sound.split('\n');
  const line = lines[index];
  const at = after === null ? line.indexOf(' ') + 1 : line.indexOf(after) + after.length;
  lines[index] = `${line.slice(0, at)}${line[at] === '1' ? '2' : '1'}${line.slice(at + 1)}`;
  writeFileSync(factsPath, lines.join('\n'));
}

/** facts.log with one byte of record `seq`'s own facts changed: in its JSON (`json`), or in the hash it is listed under. */
function damage(seq: number, where: 'json' | 'hash'): void {
  damageLine(ownLine(seq), where === 'hash' ? null : '"windowCount":');
}

before(async () => {
  // Limits on: the wallet's window counts its evaluations, so no two records' own facts are alike.
  running = await startTestService({}, undefined, { now: () => OPEN_MARKET_MS });
  for (let n = 1; n <= 6; n++) {
    const trade = sampleTrade({ wallet: `0x${'e00'.padStart(40, '0')}`, amount: n });
    assert.equal((await postJson(`${running.base}/api/v1/analyze/free`, trade)).status, 200);
  }
  factsPath = join(running.dataDir, 'audit', 'facts.log');
  sound = readFileSync(factsPath, 'utf8');
});
after(() => running.stop());

describe('a byte changed in facts.log', () => {
  it('is tampering to /audit/verify, which names the record and the file', async () => {
    damage(3, 'json');
    const response = await getJson(`${running.base}/api/v1/audit/verify`);
    assert.equal(response.status, 200);
    assert.deepEqual(response.json, {
      total: 6, tampered: 1, healthy: false, first_broken_seq: 3,
      records: [{ seq: 3, hash: recordHash(3), problem: 'facts_mismatch', location: 'facts.log' }],
    });
  });

  it('makes audit:verify on the data directory exit 1, naming the file by its path', async () => {
    damage(3, 'json');
    const text = await cli([running.dataDir]);
    assert.equal(text.status, EXIT_TAMPERED, text.out);
    assert.match(text.out, /tampered {10}1\n/);
    assert.ok(text.out.includes(`first broken seq  3 (facts mismatch: the facts kept for it do not hash to its facts_hash, in ${factsPath})`), text.out);
    const json = JSON.parse((await cli([running.dataDir, '--json'])).out);
    assert.deepEqual(json.problems, [{ seq: 3, hash: recordHash(3), problem: 'facts_mismatch', location: factsPath }]);
  });

  it('is not served by the facts export, which names the damage; pages without it still are', async () => {
    damage(3, 'json');
    const refused = await getJson(`${running.base}/api/v1/audit/facts?from_seq=1&limit=6`);
    assert.equal(refused.status, 503);
    assert.equal(refused.json.code, 'audit_facts_damaged');
    assert.match(refused.json.detail, /the facts kept for record 3 in facts\.log do not hash to the facts_hash [0-9a-f]{64} they are listed under/);
    assert.ok(!refused.text.includes('"input"'), 'no facts in the refusal');
    const later = await getJson(`${running.base}/api/v1/audit/facts?from_seq=4&limit=3`);
    assert.equal(later.status, 200);
    // The shared documents records 4 to 6 name come first, then each record's outcome document (format 3; their
    // amounts differ, so each has its own) and its own facts.
    const shared = sound.split('\n').filter((line) => line.includes('"kind":"') && !line.includes('"kind":"outcome"'));
    const own = [4, 5, 6].flatMap((seq) => [sound.split('\n').find((line) => line.startsWith(`${seq} `) && line.includes('"kind":"outcome"'))!, sound.split('\n')[ownLine(seq)]]);
    assert.deepEqual(later.text, [...shared, ...own].map((line) => `${line}\n`).join(''));
  });

  it('in the hash a line is listed under leaves the record without facts: facts_missing', async () => {
    damage(5, 'hash');
    const response = await getJson(`${running.base}/api/v1/audit/verify`);
    assert.deepEqual(response.json.records, [{ seq: 5, hash: recordHash(5), problem: 'facts_missing', location: 'facts.log' }]);
    assert.equal((await cli([running.dataDir])).status, EXIT_TAMPERED);
  });

  it('heals once the file is restored', async () => {
    writeFileSync(factsPath, sound);
    assert.deepEqual((await getJson(`${running.base}/api/v1/audit/verify`)).json, { total: 6, tampered: 0, healthy: true, records: [], first_broken_seq: null });
    assert.equal((await cli([running.dataDir])).status, EXIT_HEALTHY);
    assert.equal((await getJson(`${running.base}/api/v1/audit/facts?from_seq=1&limit=6`)).text, sound);
  });
});

describe('a byte changed in a shared facts document', () => {
  it('is tampering for every record whose facts name it, to /audit/verify, audit:verify and the facts export; it heals once restored', async () => {
    damageLine(sharedLine('price'), '"usd":');
    const response = await getJson(`${running.base}/api/v1/audit/verify`);
    assert.equal(response.json.tampered, 6);
    assert.equal(response.json.first_broken_seq, 1);
    assert.deepEqual(response.json.records.map((record: { seq: number; problem: string }) => [record.seq, record.problem]),
      [1, 2, 3, 4, 5, 6].map((seq) => [seq, 'facts_mismatch']));
    const text = await cli([running.dataDir, '--json']);
    assert.equal(text.status, EXIT_TAMPERED, text.out);
    assert.equal(JSON.parse(text.out).tampered, 6);
    const refused = await getJson(`${running.base}/api/v1/audit/facts?from_seq=4&limit=3`);
    assert.equal(refused.status, 503);
    assert.equal(refused.json.code, 'audit_facts_damaged');
    writeFileSync(factsPath, sound);
    assert.equal((await getJson(`${running.base}/api/v1/audit/verify`)).json.healthy, true);
    assert.equal((await cli([running.dataDir])).status, EXIT_HEALTHY);
  });

  it('that is lost leaves every record naming it without its facts: facts_missing', async () => {
    const lines = sound.split('\n');
    lines.splice(sharedLine('engine'), 1);
    writeFileSync(factsPath, lines.join('\n'));
    const response = await getJson(`${running.base}/api/v1/audit/verify`);
    assert.equal(response.json.tampered, 6);
    assert.ok(response.json.records.every((record: { problem: string }) => record.problem === 'facts_missing'), JSON.stringify(response.json));
    assert.equal((await cli([running.dataDir])).status, EXIT_TAMPERED);
    writeFileSync(factsPath, sound);
    assert.equal((await getJson(`${running.base}/api/v1/audit/verify`)).json.healthy, true);
  });
});
