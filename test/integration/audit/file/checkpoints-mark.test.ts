// The index's mark of checkpoints.log's checked bytes, as a real service process meets it across restarts of one DATA_DIR:
// a start checks only the lines after the mark, damage inside it is still named, and a lost index costs one full check.
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startDataDirWriter } from '../../../support/data-dir-writer.js';
import { getJson, postJson, SAMPLE_REGISTRY, sampleTrade } from '../../../support/service.js';
import { startServiceProcess, type ServiceProcess } from '../../../support/service-process.js';
import { useTempDirs } from '../../../support/temp-dirs.js';
import { pollUntil } from '../../../support/wait-until.js';

const tempDir = useTempDirs('checkpoints-mark-test-');
const wallet = (n: number) => `0x${(0xc00 + n).toString(16).padStart(40, '0')}`;

const settings = {
  PORT: '0', REGISTRY_FILE: SAMPLE_REGISTRY, WORKERS: '1', REQUEST_LOG: 'off', RATE_LIMITS: 'off',
  AUDIT_FSYNC: 'always', AUDIT_CHECKPOINT_RECORDS: '5', AUDIT_CHECKPOINT_SECONDS: '0',
};
const start = (dataDir: string): Promise<ServiceProcess> => startServiceProcess({ ...settings, DATA_DIR: dataDir });

/** `count` verdicts from `from` on, then waits until a checkpoint covers them all. */
async function evaluateAndSign(service: { base: string }, from: number, count: number): Promise<void> {
  for (let n = from; n < from + count; n++) {
    const answer = await postJson(`${service.base}/api/v1/analyze/free`, sampleTrade({ wallet: wallet(n % 4), amount: 1 }));
    assert.equal(answer.status, 200, answer.text);
  }
  await pollUntil(`checkpoint ${from + count}`, () => getJson(`${service.base}/api/v1/audit/checkpoint`),
    (answer) => answer.status === 200 && answer.json.tree_size === from + count, 60_000, 100);
}

/** What the start said of checkpoints.log: signatures it checked, lines it took as checked by the mark, and why not. */
function checkedAtStart(service: ServiceProcess): { checked: number; marked: number; why: string } {
  const said = /checked the signatures of (\d+) checkpoint lines and took (\d+) as checked by the index's mark, in \d+ ms([^"]*)/.exec(service.output());
  assert.ok(said, service.output());
  return { checked: Number(said[1]), marked: Number(said[2]), why: said[3] };
}

const linesOf = (path: string) => readFileSync(path, 'utf8').trimEnd().split('\n');
const write = (path: string, lines: string[]) => writeFileSync(path, lines.map((line) => `${line}\n`).join(''));

/** The line with one hex digit of its root_hash changed: still JSON, still a checkpoint's shape, no longer what was signed. */
function rootDigitChanged(line: string): string {
  const at = line.indexOf('"root_hash":"') + 13;
  return `${line.slice(0, at)}${line[at] === '0' ? '1' : '0'}${line.slice(at + 1)}`;
}

/** A DATA_DIR (store, log, index, keys) whose service signed checkpoints of 20 records and stopped cleanly; the starts after it are processes. */
async function signedDataDir(): Promise<{ dataDir: string; path: string }> {
  const dataDir = await tempDir();
  const first = await startDataDirWriter(settings, dataDir);
  try {
    await evaluateAndSign(first, 0, 20);
  } finally {
    await first.stop();
  }
  return { dataDir, path: join(dataDir, 'audit', 'checkpoints.log') };
}

/** Proofs are served from the file, by the newest checkpoint it holds. */
async function proofsServed(service: ServiceProcess, path: string): Promise<void> {
  const newest = JSON.parse(linesOf(path).at(-1)!).tree_size;
  const proof = await pollUntil('a proof', () => getJson(`${service.base}/api/v1/audit/proof/3`), (answer) => answer.status === 200, 60_000, 100);
  assert.equal(proof.json.checkpoint.tree_size, newest);
  assert.equal((await getJson(`${service.base}/status.json`)).json.components.audit.proofs.status, 'ok');
}

describe('the checked mark of checkpoints.log across restarts of a service process', () => {
  it('lets the next start take every line it marked as checked, and the lines written since at the start after', async () => {
    const { dataDir, path } = await signedDataDir();
    const lines = linesOf(path).length;
    assert.ok(lines >= 4, `checkpoints 5, 10, 15 and 20 at least, found ${lines}`);
    const second = await start(dataDir);
    try {
      assert.deepEqual(checkedAtStart(second), { checked: 0, marked: lines, why: '' });
      await proofsServed(second, path);
      await evaluateAndSign(second, 20, 10);
    } finally {
      await second.stop();
    }
    const more = linesOf(path).length;
    assert.ok(more > lines, 'the second start signed more checkpoints');
    const third = await start(dataDir);
    try {
      assert.deepEqual(checkedAtStart(third), { checked: 0, marked: more, why: '' });
      await proofsServed(third, path);
    } finally {
      await third.stop();
    }
  });

  it('still names a byte changed inside the marked part by line and byte, and serves again once the file is restored', async () => {
    const { dataDir, path } = await signedDataDir();
    const lines = linesOf(path);
    write(path, [rootDigitChanged(lines[0]), ...lines.slice(1)]);
    const damaged = await start(dataDir);
    try {
      assert.deepEqual(checkedAtStart(damaged), { checked: 0, marked: 0, why: ' (the index\'s mark no longer matched the file: every line checked)' });
      const named = `${path} line 1 (byte 0) is damaged: the checkpoint signature does not verify with the published key`;
      const audit = (await getJson(`${damaged.base}/status.json`)).json.components.audit;
      assert.equal(audit.proofs.status, 'fail');
      assert.ok(audit.reason.startsWith(named), audit.reason);
      const refused = await getJson(`${damaged.base}/api/v1/audit/proof/3`);
      assert.deepEqual([refused.status, refused.json.code], [503, 'audit_proofs_unavailable']);
    } finally {
      await damaged.stop();
    }
    write(path, lines);
    const restored = await start(dataDir);
    try {
      assert.deepEqual(checkedAtStart(restored), { checked: 0, marked: lines.length, why: '' }, 'the mark was kept while the file was damaged');
      await proofsServed(restored, path);
    } finally {
      await restored.stop();
    }
  });

  it('names a last marked line the file ends inside as damage, keeps it as found, and serves again once the file is restored', async () => {
    const { dataDir, path } = await signedDataDir();
    const whole = readFileSync(path);
    const lines = linesOf(path);
    const lastAt = whole.length - lines.at(-1)!.length - 1;
    // Cut 10 bytes into the last line: the index marked it whole, checked and served, so this is no torn write.
    const cutBytes = whole.subarray(0, lastAt + 10);
    writeFileSync(path, cutBytes);
    const cut = await start(dataDir);
    try {
      assert.deepEqual(checkedAtStart(cut), { checked: lines.length - 1, marked: 0, why: ' (the index\'s mark no longer matched the file: every line checked)' });
      const named = `${path} line ${lines.length} (byte ${lastAt}) is damaged: the file ends inside this line, though the audit index's mark ` +
        `shows that its first ${whole.length} bytes held whole checkpoint lines, checked and served (the file was cut or overwritten, not torn by a crash). ` +
        'Proofs and new checkpoints are off, since a checkpoint served from this file may not verify for the client. Restore the file from a copy';
      const audit = (await getJson(`${cut.base}/status.json`)).json.components.audit;
      assert.equal(audit.proofs.status, 'fail');
      assert.ok(audit.reason.startsWith(named), audit.reason);
      for (const route of ['/api/v1/audit/proof/3', '/api/v1/audit/checkpoint']) {
        const refused = await getJson(`${cut.base}${route}`);
        assert.deepEqual([refused.status, refused.json.code], [503, 'audit_proofs_unavailable'], route);
        assert.ok(String(refused.json.detail).includes(named), refused.text);
      }
    } finally {
      await cut.stop();
    }
    assert.deepEqual(readFileSync(path), cutBytes, 'the damaged line is kept as found, not cut as a torn write');
    writeFileSync(path, whole);
    const restored = await start(dataDir);
    try {
      assert.deepEqual(checkedAtStart(restored), { checked: 0, marked: lines.length, why: '' }, 'the mark was kept while the file was damaged');
      await proofsServed(restored, path);
    } finally {
      await restored.stop();
    }
  });

  it('checks every line of a file cut below the mark, naming a byte changed in what is left', async () => {
    const { dataDir, path } = await signedDataDir();
    const lines = linesOf(path);
    write(path, [lines[0], rootDigitChanged(lines[1])]);
    const cut = await start(dataDir);
    try {
      assert.deepEqual(checkedAtStart(cut), { checked: 1, marked: 0, why: ' (the index\'s mark no longer matched the file: every line checked)' });
      const audit = (await getJson(`${cut.base}/status.json`)).json.components.audit;
      assert.ok(audit.reason.startsWith(`${path} line 2 (byte ${lines[0].length + 1}) is damaged: the checkpoint signature does not verify`), audit.reason);
      const refused = await getJson(`${cut.base}/api/v1/audit/checkpoint`);
      assert.deepEqual([refused.status, refused.json.code], [503, 'audit_proofs_unavailable']);
    } finally {
      await cut.stop();
    }
  });

  it('checks every line once after the index folder was deleted, and marks them again for the start after', async () => {
    const { dataDir, path } = await signedDataDir();
    const lines = linesOf(path).length;
    rmSync(join(dataDir, 'audit', 'index'), { recursive: true });
    const rebuilt = await start(dataDir);
    try {
      assert.match(rebuilt.output(), /audit: indexing audit\.log from its start/);
      assert.deepEqual(checkedAtStart(rebuilt), { checked: lines, marked: 0, why: ' (no mark in the index: every line checked)' });
      await proofsServed(rebuilt, path);
    } finally {
      await rebuilt.stop();
    }
    const next = await start(dataDir);
    try {
      assert.deepEqual(checkedAtStart(next), { checked: 0, marked: linesOf(path).length, why: '' });
    } finally {
      await next.stop();
    }
  });
});
