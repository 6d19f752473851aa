// The bulk verification job: sources, report, progress output and exit status.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseLine } from '../../../../src/audit/record/record.js';
import { EXIT_ERROR, EXIT_HEALTHY, EXIT_TAMPERED, runAuditVerify } from '../../../../src/tools/cli/audit-verify-command.js';
import { ProgressBar } from '../../../../src/tools/cli/progress-bar.js';
import { buildChain, deleteRecord, editAndRehash, fileText, flipByte, swapRecords, truncateTail } from '../../../support/audit-verify-chains.js';

const { lines, head } = buildChain(60);
const dirs: string[] = [];
after(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A DATA_DIR holding audit/audit.log with these lines. */
async function dataDir(stored: Buffer[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'audit-cli-test-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'audit'));
  writeFileSync(join(dir, 'audit', 'audit.log'), fileText(stored));
  return dir;
}

async function run(args: string[], isTTY = false): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const status = await runAuditVerify([...args, '--threads', '1'], {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text), isTTY },
  });
  return { status, stdout, stderr };
}

const field = (stdout: string, name: string) => stdout.match(new RegExp(`^  ${name} +(.*)$`, 'm'))?.[1];

describe('audit:verify on a data directory', () => {
  it('reports a healthy chain and exits 0', async () => {
    const { status, stdout, stderr } = await run([await dataDir(lines)]);
    assert.equal(status, EXIT_HEALTHY);
    assert.equal(field(stdout, 'records checked'), '60');
    assert.equal(field(stdout, 'tampered'), '0');
    assert.equal(field(stdout, 'healthy'), 'yes');
    assert.equal(field(stdout, 'first broken seq'), 'none');
    assert.match(stderr, /^verifying: 100% 60 records, [\d,]+ records\/s, ETA 0\.0 s\n$/m, 'plain progress lines when not a TTY');
    assert.doesNotMatch(stderr, /\r/);
  });

  const cases: Array<[string, Buffer[], string[], string]> = [
    ['a flipped byte', flipByte(lines, 17), [], '17 (hash mismatch: its bytes do not hash to its stored hash)'],
    ['a deleted record', deleteRecord(lines, 17), [], '18 (gap in seq: records before it are missing)'],
    ['two swapped records', swapRecords(lines, 17, 18), [], '18 (reorder: it is stored out of seq order)'],
    ['a truncated tail', truncateTail(lines, 3), ['--head', `${head.seq}:${head.hash}`], '58 (truncated: the chain ends before the record it must reach (the head))'],
    ['a re-hashed edit', editAndRehash(lines, 17), [], '18 (broken link: its prev_hash names neither the stored nor the real hash of the record before it)'],
  ];
  for (const [name, stored, extra, first] of cases) {
    it(`finds ${name}, names the first broken seq and its reason, and exits 1`, async () => {
      const { status, stdout } = await run([await dataDir(stored), ...extra]);
      assert.equal(status, EXIT_TAMPERED);
      assert.equal(field(stdout, 'healthy'), 'NO');
      assert.equal(field(stdout, 'first broken seq'), first);
    });
  }

  it('takes --head from a verdict in the middle of the chain, or a bare SEQ as a length check', async () => {
    const dir = await dataDir(lines);
    const receipt = `30:${lines[29].toString('latin1', 0, 64)}`;
    assert.equal((await run([dir, '--head', receipt])).status, EXIT_HEALTHY);
    const forged = await run([dir, '--head', `30:${'0'.repeat(64)}`]);
    assert.equal(forged.status, EXIT_TAMPERED);
    assert.equal(field(forged.stdout, 'first broken seq'), '30 (head mismatch: the record it must reach (the head) has another hash)');
    assert.equal((await run([dir, '--head', '60'])).status, EXIT_HEALTHY);
    assert.equal((await run([dir, '--head', '61'])).status, EXIT_TAMPERED);
  });

  it('gives the same verdict with node:crypto as the hasher', async () => {
    const dir = await dataDir(swapRecords(lines, 40, 41));
    const [wasm, node] = [await run([dir, '--json']), await run([dir, '--json', '--hasher', 'node:crypto'])];
    assert.equal(node.status, EXIT_TAMPERED);
    assert.deepEqual({ ...JSON.parse(node.stdout), seconds: 0 }, { ...JSON.parse(wasm.stdout), seconds: 0 });
    assert.equal((await run([dir, '--hasher', 'md5'])).status, EXIT_ERROR);
  });

  it('prints the report as JSON with --json', async () => {
    const { status, stdout } = await run([join(await dataDir(flipByte(lines, 5)), 'audit', 'audit.log'), '--json']);
    assert.equal(status, EXIT_TAMPERED);
    const report = JSON.parse(stdout);
    assert.deepEqual({ ...report, seconds: 0, source: '' }, {
      source: '', seconds: 0, total: 60, tampered: 1, healthy: false, firstBrokenSeq: 5,
      problems: [{ seq: 5, hash: lines[4].toString('latin1', 0, 64), problem: 'hash_mismatch' }],
    });
  });

  it('draws a bar redrawn in place on a terminal', async () => {
    const { stderr } = await run([await dataDir(lines)], true);
    assert.match(stderr, /\rverifying \[#{24}\] 100% 60 records, [\d,]+ records\/s, ETA 0\.0 s\x1b\[K\n$/);
  });
});

describe('audit:verify on a JSON-lines export of records', () => {
  const records = lines.map((line) => JSON.stringify(parseLine(line)));

  it('re-hashes the canonical form of each record without its hash', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'audit-cli-test-'));
    dirs.push(dir);
    const file = join(dir, 'records.jsonl');
    writeFileSync(file, `${records.join('\n')}\n`);
    assert.equal((await run([file])).status, EXIT_HEALTHY);
    const edited = records.map((text, i) => (i === 9 ? text.replace('"risk_score":9', '"risk_score":8') : text));
    writeFileSync(file, `${edited.join('\n')}\n`);
    const { status, stdout } = await run([file]);
    assert.equal(status, EXIT_TAMPERED);
    assert.equal(field(stdout, 'first broken seq'), '10 (hash mismatch: its bytes do not hash to its stored hash)');
  });
});

describe('audit:verify usage', () => {
  it('exits 2 with the usage on bad arguments, and on an unreadable source', async () => {
    const noArgs = await run([]);
    assert.equal(noArgs.status, EXIT_ERROR);
    assert.match(noArgs.stderr, /^usage: npm run audit:verify -- <source>/);
    const help = await run(['--help']);
    assert.deepEqual([help.status, help.stdout.startsWith('usage:')], [EXIT_HEALTHY, true]);
    assert.equal((await run(['x', '--head', 'abc'])).status, EXIT_ERROR);
    const missing = await run([join(tmpdir(), 'no-such-audit-dir-for-test')]);
    assert.equal(missing.status, EXIT_ERROR);
    assert.match(missing.stderr, /^audit:verify: ENOENT/);
  });

  it('runs as a program with the exit status of the verdict', async () => {
    const script = fileURLToPath(new URL('../../../../src/tools/cli/audit-verify.js', import.meta.url));
    const good = spawnSync(process.execPath, [script, await dataDir(lines), '--threads', '1'], { encoding: 'utf8' });
    assert.equal(good.status, 0, good.stderr);
    const bad = spawnSync(process.execPath, [script, await dataDir(deleteRecord(lines, 30)), '--threads', '1'], { encoding: 'utf8' });
    assert.equal(bad.status, 1, bad.stderr);
    assert.match(bad.stdout, /first broken seq {2}31 \(gap in seq/);
  });
});

describe('progress bar', () => {
  /** A bar on a plain (non-terminal) stream, its clock moved by hand. */
  function plainBar(total: number) {
    let clock = 0;
    let out = '';
    const bar = new ProgressBar({ stream: { write: (t: string) => (out += t) }, total, label: 'verifying', now: () => clock });
    return { bar, at: (ms: number) => void (clock = ms), out: () => out };
  }

  it('draws a plain line every 2 s, with rate and ETA, then the final one', () => {
    const { bar, at, out } = plainBar(1000);
    at(1000);
    bar.update(100, 10_000);
    assert.equal(out(), '', 'nothing before the first interval');
    at(2000);
    bar.update(250, 50_000);
    at(3500);
    bar.update(300, 60_000);
    at(4000);
    bar.finish(1000, 100_000);
    assert.equal(out(), 'verifying: 25% 50,000 records, 25,000 records/s, ETA 6.0 s\nverifying: 100% 100,000 records, 25,000 records/s, ETA 0.0 s\n');
  });

  it('shows a run shorter than one interval by its final line only', () => {
    const { bar, at, out } = plainBar(10);
    at(200);
    bar.update(10, 10);
    bar.finish(10, 10);
    assert.equal(out(), 'verifying: 100% 10 records, 50 records/s, ETA 0.0 s\n');
  });
});
