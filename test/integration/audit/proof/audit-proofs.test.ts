// Signed checkpoints and Merkle proofs over real HTTP on the file audit log: the endpoints, the
// `audit:verify --prove/--since` checks, the plain-Node verifier of docs/audit-records.md, restarts, and a lying server.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { CheckpointSigner, checkCheckpoint, type Checkpoint } from '../../../../src/audit/proof/checkpoint.js';
import { leafHash } from '../../../../src/audit/proof/merkle.js';
import { checkConsistency, checkInclusion } from '../../../../src/audit/proof/proof-check.js';
import { EXIT_HEALTHY, EXIT_TAMPERED, runAuditVerify } from '../../../../src/tools/cli/audit-verify-command.js';
import { getJson, postJson, sampleTrade, startTestService, type TestService } from '../../../support/service.js';
import { ManualClock } from '../../../support/manual-clock.js';
import { pollUntil, waitUntil } from '../../../support/wait-until.js';

const SEED = Buffer.alloc(32, 7);
const SIGNING_KEY = SEED.toString('base64');
const ENV = { RATE_LIMITS: 'off', AUDIT_CHECKPOINT_RECORDS: '5', AUDIT_CHECKPOINT_SECONDS: '0', AUDIT_SIGNING_KEY: SIGNING_KEY };
const EXAMPLE = fileURLToPath(new URL('../../../../../examples/verify-proof.mjs', import.meta.url));
const AUDIT_GUIDE = fileURLToPath(new URL('../../../../../docs/audit-records.md', import.meta.url));

let running: TestService;
const clock = new ManualClock();

async function evaluate(target: TestService, n: number): Promise<number> {
  const response = await postJson(`${target.base}/api/v1/analyze/free`, sampleTrade({ wallet: `0x${(0xa00 + n).toString(16).padStart(40, '0')}`, amount: 1 }));
  assert.equal(response.status, 200, response.text);
  return response.json.audit_seq as number;
}

/** The newest checkpoint once it has at least `size` leaves (signing runs beside the append). */
async function checkpointOf(target: TestService, size: number): Promise<Checkpoint> {
  const answer = await pollUntil(`checkpoint ${size}`, () => getJson(`${target.base}/api/v1/audit/checkpoint`), (r) => r.status === 200 && r.json.tree_size >= size);
  return answer.json as Checkpoint;
}

/** The report on stdout (`out`), progress and errors on stderr (`err`). */
function cli(args: string[]): Promise<{ status: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io = { stdout: { write: (text: string) => (out += text) }, stderr: { write: (text: string) => (err += text), isTTY: false } };
  return runAuditVerify(args, io).then((status) => ({ status, out, err }));
}

/** Runs the guide's verifier as a child process; asynchronously, since the service answers from this process. */
function example(base: string, seq: number): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [EXAMPLE, base, String(seq)], { encoding: 'utf8', timeout: 20_000 }, (error, stdout, stderr) => {
      resolve({ status: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
  });
}

before(async () => {
  running = await startTestService(ENV, undefined, { now: clock.now });
  for (let n = 1; n <= 12; n++) await evaluate(running, n);
  await checkpointOf(running, 10);
});
after(() => running.stop());

describe('checkpoints', () => {
  it('are signed with the published key, which the root document carries too', async () => {
    const key = (await getJson(`${running.base}/.well-known/audit-key.json`)).json;
    assert.deepEqual(key, new CheckpointSigner(SEED).published);
    assert.deepEqual((await getJson(`${running.base}/`)).json.audit_key, key);
    const latest = (await getJson(`${running.base}/api/v1/audit/checkpoint`)).json;
    assert.equal(latest.tree_size, 10, 'every 5 records: 5, then 10');
    assert.equal(latest.last_seq, 10);
    assert.equal(latest.timestamp, clock.now());
    assert.equal(checkCheckpoint(latest, key), null);
    const lines = (await (await fetch(`${running.base}/api/v1/audit/export?from_seq=10&limit=1`)).text());
    assert.equal(latest.last_hash, lines.slice(0, 64));
  });

  it('are found by size; a size never signed is a 404 and a bad size a 422', async () => {
    assert.equal((await getJson(`${running.base}/api/v1/audit/checkpoint?tree_size=5`)).json.tree_size, 5);
    const missing = await getJson(`${running.base}/api/v1/audit/checkpoint?tree_size=7`);
    assert.equal(missing.status, 404);
    assert.equal(missing.json.code, 'checkpoint_not_found');
    assert.match(missing.json.detail, /no checkpoint has tree_size 7/);
    const bad = await getJson(`${running.base}/api/v1/audit/checkpoint?tree_size=zero`);
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.json.detail[0].loc, ['query', 'tree_size']);
  });

  it('are signed on time as well as by count, by the service clock', async () => {
    const timed = await startTestService({ ...ENV, AUDIT_CHECKPOINT_RECORDS: '0', AUDIT_CHECKPOINT_SECONDS: '10' }, undefined, { now: clock.now });
    try {
      await evaluate(timed, 1);
      assert.equal((await checkpointOf(timed, 1)).tree_size, 1, 'the first record after start is signed at once');
      await evaluate(timed, 2);
      await evaluate(timed, 3);
      assert.equal((await getJson(`${timed.base}/api/v1/audit/checkpoint`)).json.tree_size, 1, 'not before 10 s');
      clock.advance(10_000);
      await evaluate(timed, 4);
      assert.equal((await checkpointOf(timed, 4)).tree_size, 4);
    } finally {
      await timed.stop();
    }
  });
});

describe('checkpoints when the traffic stops', () => {
  it('sign the last records within a second of coming due, with no append to ask', async () => {
    const quiet = await startTestService({ ...ENV, AUDIT_CHECKPOINT_RECORDS: '0', AUDIT_CHECKPOINT_SECONDS: '10' }, undefined, { now: clock.now });
    try {
      await evaluate(quiet, 1);
      assert.equal((await checkpointOf(quiet, 1)).tree_size, 1);
      await evaluate(quiet, 2);
      await evaluate(quiet, 3);
      clock.advance(10_000);
      // No request from here on: the tree notices by itself that a checkpoint is due.
      await waitUntil(async () => (await getJson(`${quiet.base}/api/v1/audit/checkpoint`)).json.tree_size === 3,
        'records 2 and 3 are not signed 2.5 s after their checkpoint came due', 2_500, 50);
    } finally {
      await quiet.stop();
    }
  });
});

describe('inclusion and consistency proofs', () => {
  it('prove each record against the latest checkpoint or an earlier one', async () => {
    const latest = (await getJson(`${running.base}/api/v1/audit/checkpoint`)).json as Checkpoint;
    const lines = (await (await fetch(`${running.base}/api/v1/audit/export?from_seq=1&limit=12`)).text()).split('\n');
    for (let seq = 1; seq <= 10; seq++) {
      const proof = (await getJson(`${running.base}/api/v1/audit/proof/${seq}`)).json;
      assert.equal(proof.leaf_hash, leafHash(lines[seq - 1].slice(0, 64)).toString('hex'));
      assert.deepEqual(proof.checkpoint, latest);
      assert.equal(checkInclusion(proof.leaf_hash, proof.leaf_index, proof.tree_size, proof.audit_path, latest.root_hash), null, `seq ${seq}`);
    }
    const early = (await getJson(`${running.base}/api/v1/audit/proof/3?tree_size=5`)).json;
    assert.equal(early.tree_size, 5);
    assert.equal(checkInclusion(early.leaf_hash, 2, 5, early.audit_path, early.checkpoint.root_hash), null);
  });

  it('refuse a record outside the checkpoint (422), a size never signed (404) and a bad seq (422)', async () => {
    const outside = await getJson(`${running.base}/api/v1/audit/proof/11`);
    assert.equal(outside.status, 422);
    assert.deepEqual(outside.json.detail[0].loc, ['path', 'seq']);
    assert.match(outside.json.detail[0].msg, /record 11 is not in the tree of checkpoint 10/);
    assert.equal((await getJson(`${running.base}/api/v1/audit/proof/3?tree_size=4`)).status, 404);
    const bad = await getJson(`${running.base}/api/v1/audit/proof/0?tree_size=x`);
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.json.detail.map((issue: { loc: unknown[] }) => issue.loc), [['path', 'seq'], ['query', 'tree_size']]);
  });

  it('show that a later checkpoint extends an earlier one', async () => {
    const [first, second] = [(await getJson(`${running.base}/api/v1/audit/checkpoint?tree_size=5`)).json, (await getJson(`${running.base}/api/v1/audit/checkpoint`)).json];
    const proof = (await getJson(`${running.base}/api/v1/audit/consistency?first=5&second=10`)).json;
    assert.deepEqual([proof.first, proof.second], [5, 10]);
    assert.equal(checkConsistency(5, 10, first.root_hash, second.root_hash, proof.proof), null);
    assert.equal((await getJson(`${running.base}/api/v1/audit/consistency?first=5&second=7`)).status, 404);
    const reversed = await getJson(`${running.base}/api/v1/audit/consistency?first=10&second=5`);
    assert.equal(reversed.status, 422);
    const missing = await getJson(`${running.base}/api/v1/audit/consistency?first=5`);
    assert.equal(missing.status, 422);
    assert.deepEqual(missing.json.detail[0].loc, ['query', 'second']);
  });
});

describe('verifying on the client side', () => {
  it('audit:verify --prove checks a record, and the verifier printed in full in docs/audit-records.md agrees', async () => {
    const proved = await cli([running.base, '--prove', '7']);
    assert.equal(proved.status, EXIT_HEALTHY, proved.out);
    assert.match(proved.out, /record {12}7 \([0-9a-f]{64}\)\n {2}included in {7}checkpoint 10/);
    const script = await example(running.base, 7);
    assert.equal(script.status, 0, script.stdout + script.stderr);
    assert.match(script.stdout, /record 7 is in checkpoint 10/);
    assert.ok(readFileSync(AUDIT_GUIDE, 'utf8').includes(readFileSync(EXAMPLE, 'utf8').trim()), 'docs/audit-records.md shows the verifier as it is run');
  });

  it('audit:verify --since checks only the records after a trusted checkpoint, and saves the next one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'guardrail-proof-'));
    const saved = join(dir, 'checkpoint.json');
    const start = await cli([running.base, '--since', 'genesis', '--save', saved, '--json']);
    assert.equal(start.status, EXIT_HEALTHY, start.out + start.err);
    assert.equal(JSON.parse(start.out).records, 10);
    assert.match(start.err, /^verifying: 100% 10 records, [\d,]+ records\/s, ETA 0\.0 s\n$/, 'progress on stderr, the report alone on stdout');
    for (let n = 13; n <= 16; n++) await evaluate(running, n);
    await checkpointOf(running, 15);
    const next = await cli([running.base, '--since', saved, '--save', saved, '--json']);
    assert.equal(next.status, EXIT_HEALTHY, next.out);
    const report = JSON.parse(next.out);
    assert.deepEqual([report.from.tree_size, report.to.tree_size, report.records], [10, 15, 5], 'only the 5 new records were read');
    assert.equal(JSON.parse(readFileSync(saved, 'utf8')).tree_size, 15);
  });
});

describe('against a server that lies', () => {
  let liar: Server;
  let liarBase = '';
  let mode = '';
  const forger = new CheckpointSigner(SEED);

  /** Forwards to the real service and bends one answer, as `mode` says. */
  async function bend(path: string, text: string): Promise<string> {
    if (mode === 'sibling' && path.startsWith('/api/v1/audit/proof/')) {
      const proof = JSON.parse(text);
      proof.audit_path[0] = proof.audit_path[0].replace(/^./, (c: string) => (c === 'f' ? '0' : 'f'));
      return JSON.stringify(proof);
    }
    if (mode === 'other-size' && path.startsWith('/api/v1/audit/proof/')) {
      // The path of an older tree, presented under the latest signed checkpoint.
      const older = JSON.parse(await (await fetch(`${running.base}${path.split('?')[0]}?tree_size=5`)).text());
      const latest = JSON.parse(text).checkpoint;
      return JSON.stringify({ ...older, tree_size: latest.tree_size, checkpoint: latest });
    }
    if (mode === 'signature' && path.startsWith('/api/v1/audit/proof/')) {
      const proof = JSON.parse(text);
      proof.checkpoint.root_hash = proof.checkpoint.root_hash.replace(/^./, (c: string) => (c === 'f' ? '0' : 'f'));
      return JSON.stringify(proof);
    }
    if (mode === 'fork' && path.startsWith('/api/v1/audit/checkpoint')) {
      // Signed with the real key: a service that rewrote its history and signed the result.
      const honest = JSON.parse(text) as Checkpoint;
      const { signature: _, key_id: __, ...body } = honest;
      return JSON.stringify(forger.sign({ ...body, root_hash: 'ab'.repeat(32) }));
    }
    return text;
  }

  before(async () => {
    liar = createServer((request, response) => {
      void (async () => {
        const upstream = await fetch(`${running.base}${request.url}`);
        const text = await bend(request.url ?? '/', await upstream.text());
        response.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
        response.end(text);
      })();
    });
    await new Promise<void>((resolve) => liar.listen(0, '127.0.0.1', resolve));
    liarBase = `http://127.0.0.1:${(liar.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => liar.close(() => resolve())));

  const cases: Array<[string, RegExp, RegExp]> = [
    ['sibling', /inclusion: the audit path does not lead to the checkpoint root/, /the path does not lead to the signed root/],
    ['other-size', /inclusion: the audit path is shorter than the tree is deep/, /the path does not lead to the signed root/],
    ['signature', /the checkpoint: the checkpoint signature does not verify with the published key/, /bad checkpoint signature/],
  ];
  for (const [name, cliReason, scriptReason] of cases) {
    it(`refuses a proof with ${name === 'sibling' ? 'a tampered sibling' : name === 'other-size' ? 'the path of another tree size' : 'a checkpoint its signature does not cover'}`, async () => {
      mode = name;
      const checked = await cli([liarBase, '--prove', '3']);
      assert.equal(checked.status, EXIT_TAMPERED, checked.out);
      assert.match(checked.out, cliReason);
      const script = await example(liarBase, 3);
      assert.equal(script.status, 1, script.stdout + script.stderr);
      assert.match(script.stdout, scriptReason);
      mode = '';
      assert.equal((await cli([liarBase, '--prove', '3'])).status, EXIT_HEALTHY, 'the same proof, unbent, holds');
    });
  }

  it('refuses a signed checkpoint that is not consistent with one the verifier trusts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'guardrail-proof-'));
    const trusted = join(dir, 'trusted.json');
    writeFileSync(trusted, JSON.stringify((await getJson(`${running.base}/api/v1/audit/checkpoint?tree_size=5`)).json));
    mode = 'fork';
    const checked = await cli([liarBase, '--since', trusted]);
    mode = '';
    assert.equal(checked.status, EXIT_TAMPERED, checked.out);
    assert.match(checked.out, /consistency with the trusted checkpoint: the consistency proof does not rebuild the later root/);
  });
});

describe('across a restart', () => {
  it('keeps every checkpoint, signs what a clean stop left, and proves old records from the log read back', async () => {
    const first = await startTestService(ENV, undefined, { now: clock.now });
    for (let n = 1; n <= 7; n++) await evaluate(first, n);
    await checkpointOf(first, 5);
    await first.stop(false);
    const again = await startTestService(ENV, first.dataDir, { now: clock.now });
    try {
      assert.equal((await getJson(`${again.base}/api/v1/audit/checkpoint?tree_size=5`)).json.tree_size, 5);
      assert.equal((await getJson(`${again.base}/api/v1/audit/checkpoint`)).json.tree_size, 7, 'the stop signed records 6 and 7');
      const proof = await pollUntil('proof after restart', () => getJson(`${again.base}/api/v1/audit/proof/6`), (r) => r.status === 200);
      assert.equal(checkInclusion(proof.json.leaf_hash, 5, 7, proof.json.audit_path, proof.json.checkpoint.root_hash), null);
      const proved = await cli([again.base, '--prove', '2']);
      assert.equal(proved.status, EXIT_HEALTHY, proved.out);
    } finally {
      await again.stop();
    }
  });
});
