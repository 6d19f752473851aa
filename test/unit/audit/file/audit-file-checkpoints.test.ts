// checkpoints.log on a real folder: every line judged as it is read (signature, growth), a damaged one named by file,
// line and byte, a torn last line cut, lines read a block at a time, the newest checkpoint read from the end, and
// the mark in the audit index that lets a start check each signature once.
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { checkpointDamage, judgeCheckpointLine } from '../../../../src/audit/file/checkpoint-lines.js';
import { FileCheckpointStore, newestCheckpointSize } from '../../../../src/audit/file/file-checkpoints.js';
import { FileAuditLog, type CheckpointsMarks } from '../../../../src/audit/file/file-audit-log.js';
import type { CheckpointsMark } from '../../../../src/audit/file/log-index.js';
import { createHash } from 'node:crypto';
import { fileLines } from '../../../../src/audit/file/file-lines.js';
import { CheckpointSigner, type Checkpoint } from '../../../../src/audit/proof/checkpoint.js';
import { useTempDirs } from '../../../support/temp-dirs.js';

const signer = new CheckpointSigner(Buffer.alloc(32, 7));
const key = signer.published;
const tempDir = useTempDirs('guardrail-checkpoints-');

function signed(size: number): Checkpoint {
  return signer.sign({ tree_size: size, root_hash: size.toString(16).padStart(64, 'a'), timestamp: 1_800_000_000_000 + size, last_seq: size, last_hash: 'b'.repeat(64) });
}

/** A folder whose checkpoints.log holds these lines, each with its newline. */
async function fileOf(lines: string[]): Promise<{ dir: string; path: string }> {
  const dir = await tempDir();
  const path = join(dir, 'checkpoints.log');
  writeFileSync(path, lines.map((line) => `${line}\n`).join(''));
  return { dir, path };
}

/** The line with one hex digit of its root_hash changed: still JSON, still a checkpoint's shape. */
function rootDigitChanged(line: string): string {
  const at = line.indexOf('"root_hash":"') + 13;
  return `${line.slice(0, at)}${line[at] === 'a' ? 'b' : 'a'}${line.slice(at + 1)}`;
}

describe('judgeCheckpointLine', () => {
  it('takes a checkpoint signed by the key that grows past the line before', () => {
    assert.deepEqual(judgeCheckpointLine(JSON.stringify(signed(10)), 5, key), { checkpoint: signed(10) });
  });

  it('names what is wrong with a damaged line', () => {
    const line = JSON.stringify(signed(10));
    assert.deepEqual(judgeCheckpointLine(rootDigitChanged(line), 5, key), { fault: 'the checkpoint signature does not verify with the published key' });
    assert.deepEqual(judgeCheckpointLine(line.slice(0, -1), 5, key), { fault: 'it is not JSON' });
    assert.deepEqual(judgeCheckpointLine(line.replace('"last_seq":10', '"last_seq":11'), 5, key), { fault: 'last_seq differs from tree_size' });
    assert.deepEqual(judgeCheckpointLine(line, 10, key), { fault: 'its tree_size 10 is not above the 10 of the line before it' });
    const other = new CheckpointSigner(Buffer.alloc(32, 8)).published;
    assert.deepEqual(judgeCheckpointLine(line, 5, other), { fault: `the checkpoint names key ${key.key_id}, the published key is ${other.key_id}` });
  });
});

describe('FileCheckpointStore', () => {
  it('serves every sound line after a start, and appends after them', async () => {
    const { dir, path } = await fileOf([5, 10, 12].map((size) => JSON.stringify(signed(size))));
    const store = await FileCheckpointStore.open(dir, key);
    try {
      assert.equal(store.damage(), null);
      assert.deepEqual(await store.latest(), signed(12));
      assert.deepEqual(await store.atSize(5), signed(5));
      assert.deepEqual([store.sizeAfter(0), store.sizeAfter(5), store.sizeAfter(11), store.sizeAfter(12)], [5, 10, 12, null]);
      assert.deepEqual(await store.add(signed(20)), signed(20));
      assert.equal(readFileSync(path, 'utf8').split('\n').length, 5);
    } finally {
      await store.close();
    }
  });

  it('names the file, line and byte of a byte changed in the first line, and serves and writes nothing past it', async () => {
    const lines = [5, 10, 12].map((size) => JSON.stringify(signed(size)));
    const { dir, path } = await fileOf([rootDigitChanged(lines[0]), ...lines.slice(1)]);
    const before = readFileSync(path);
    const store = await FileCheckpointStore.open(dir, key);
    try {
      const damage = checkpointDamage(path, { number: 1, offset: 0, fault: 'the checkpoint signature does not verify with the published key' });
      assert.equal(store.damage(), damage);
      assert.match(damage, /checkpoints\.log line 1 \(byte 0\) is damaged: the checkpoint signature does not verify/);
      assert.equal(await store.latest(), null);
      await assert.rejects(store.add(signed(20)), { message: damage });
      assert.deepEqual(readFileSync(path), before, 'the file is left as the operator found it');
    } finally {
      await store.close();
    }
  });

  it('names the last line when it is the damaged one, and keeps the lines before it', async () => {
    const lines = [5, 10, 12].map((size) => JSON.stringify(signed(size)));
    const { dir, path } = await fileOf([...lines.slice(0, 2), rootDigitChanged(lines[2])]);
    const store = await FileCheckpointStore.open(dir, key);
    try {
      assert.match(store.damage() ?? '', new RegExp(`^${path.replace(/[.]/g, '\\.')} line 3 \\(byte ${lines[0].length + lines[1].length + 2}\\) is damaged`));
      assert.deepEqual(await store.latest(), signed(10));
    } finally {
      await store.close();
    }
  });

  it('finds a line damaged after the start as it serves it', async () => {
    const lines = [5, 10].map((size) => JSON.stringify(signed(size)));
    const { dir, path } = await fileOf(lines);
    const store = await FileCheckpointStore.open(dir, key);
    try {
      writeFileSync(path, `${rootDigitChanged(lines[0])}\n${lines[1]}\n`);
      await assert.rejects(store.atSize(5), /checkpoints\.log line 1 \(byte 0\) is damaged/);
      assert.match(store.damage() ?? '', /line 1/);
    } finally {
      await store.close();
    }
  });

  it('cuts a torn last line, which no newline ends, as a write a crash cut short', async () => {
    const { dir, path } = await fileOf([JSON.stringify(signed(5))]);
    appendFileSync(path, JSON.stringify(signed(10)).slice(0, 40));
    const store = await FileCheckpointStore.open(dir, key);
    try {
      assert.equal(store.damage(), null);
      assert.deepEqual(await store.latest(), signed(5));
      assert.equal(readFileSync(path, 'utf8'), `${JSON.stringify(signed(5))}\n`);
    } finally {
      await store.close();
    }
  });
});

/**
 * An empty audit log's folder (its LMDB index is the mark keeper), with checkpoints.log written after the log opened:
 * the log would refuse to open under checkpoints that cover records it lacks.
 */
async function indexedFolder(lines: string[]): Promise<{ dir: string; path: string; log: FileAuditLog }> {
  const dir = await tempDir();
  const log = await FileAuditLog.open(dir);
  const path = join(dir, 'checkpoints.log');
  writeFileSync(path, lines.map((line) => `${line}\n`).join(''));
  return { dir, path, log };
}

/** A mark keeper that holds one mark in memory, for marks no store would write. */
function heldMark(mark: CheckpointsMark | null): CheckpointsMarks & { mark: CheckpointsMark | null } {
  const held = { mark, get: () => held.mark, set: (next: CheckpointsMark) => { held.mark = next; } };
  return held;
}

describe('the checked mark in the audit index', () => {
  it('marks every sound line read at a start and written since, in the index beside the log', async () => {
    const { dir, path, log } = await indexedFolder([5, 10].map((size) => JSON.stringify(signed(size))));
    try {
      const first = await FileCheckpointStore.open(dir, key, log.checkpointsMarks);
      await first.add(signed(12));
      await first.close();
      const bytes = readFileSync(path);
      assert.deepEqual(log.checkpointsMarks.get(), { end: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex'), keyId: key.key_id });
      const again = await FileCheckpointStore.open(dir, key, log.checkpointsMarks);
      assert.deepEqual(await again.latest(), signed(12));
      assert.equal(again.damage(), null);
      await again.close();
    } finally {
      await log.close();
    }
  });

  it('takes the signatures inside a mark as checked: a start checks only the lines after it', async () => {
    // A line whose signature fails but whose bytes a mark vouches for: only a start that re-checks it would see it.
    const lines = [rootDigitChanged(JSON.stringify(signed(5))), JSON.stringify(signed(10))];
    const { dir, path } = await fileOf(lines);
    const marked = Buffer.from(`${lines[0]}\n`);
    const keeper = heldMark({ end: marked.length, sha256: createHash('sha256').update(marked).digest('hex'), keyId: key.key_id });
    const store = await FileCheckpointStore.open(dir, key, keeper);
    try {
      assert.equal(store.damage(), null);
      assert.deepEqual(await store.latest(), signed(10));
      assert.equal(keeper.mark?.end, readFileSync(path).length, 'the mark now covers the line checked after it');
    } finally {
      await store.close();
    }
  });

  it('checks every line again when a byte inside the marked part changed, and names it', async () => {
    const lines = [5, 10, 12].map((size) => JSON.stringify(signed(size)));
    const { dir, path, log } = await indexedFolder(lines);
    try {
      await (await FileCheckpointStore.open(dir, key, log.checkpointsMarks)).close();
      assert.equal(log.checkpointsMarks.get()?.end, readFileSync(path).length);
      writeFileSync(path, [lines[0], rootDigitChanged(lines[1]), lines[2]].map((line) => `${line}\n`).join(''));
      const again = await FileCheckpointStore.open(dir, key, log.checkpointsMarks);
      assert.match(again.damage() ?? '', new RegExp(`checkpoints\\.log line 2 \\(byte ${lines[0].length + 1}\\) is damaged: the checkpoint signature does not verify`));
      assert.deepEqual(await again.latest(), signed(5));
      await again.close();
    } finally {
      await log.close();
    }
  });

  it('checks every line when the file is shorter than the mark, or the mark was made for another key or ends inside a line', async () => {
    const lines = [5, 10].map((size) => JSON.stringify(signed(size)));
    const bad = rootDigitChanged(JSON.stringify(signed(12)));
    const { dir } = await fileOf([...lines, bad]);
    const whole = Buffer.from([...lines, bad].map((line) => `${line}\n`).join(''));
    const hashOf = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
    const marks = [
      { end: whole.length + 10, sha256: hashOf(whole), keyId: key.key_id },
      { end: whole.length, sha256: hashOf(whole), keyId: new CheckpointSigner(Buffer.alloc(32, 8)).published.key_id },
      { end: whole.length - 5, sha256: hashOf(whole.subarray(0, whole.length - 5)), keyId: key.key_id },
    ];
    for (const mark of marks) {
      const store = await FileCheckpointStore.open(dir, key, heldMark(mark));
      try {
        assert.match(store.damage() ?? '', /line 3 .* is damaged: the checkpoint signature does not verify/, JSON.stringify(mark));
      } finally {
        await store.close();
      }
    }
  });
});

describe('a last line no newline ends, against the mark', () => {
  const lines = [5, 10, 12].map((size) => JSON.stringify(signed(size)));
  const whole = Buffer.from(lines.map((line) => `${line}\n`).join(''));
  const lastAt = whole.length - lines[2].length - 1;
  const markOfWhole = () => heldMark({ end: whole.length, sha256: createHash('sha256').update(whole).digest('hex'), keyId: key.key_id });

  it('keeps and names a line inside the mark the file ends in, or whose newline is gone: it was whole and served', async () => {
    for (const found of [whole.subarray(0, lastAt + 10), whole.subarray(0, whole.length - 1), Buffer.concat([whole.subarray(0, -1), Buffer.from('x')])]) {
      const { dir, path } = await fileOf([]);
      writeFileSync(path, found);
      const store = await FileCheckpointStore.open(dir, key, markOfWhole());
      try {
        assert.ok((store.damage() ?? '').startsWith(`${path} line 3 (byte ${lastAt}) is damaged: the file ends inside this line, though the audit ` +
          `index's mark shows that its first ${whole.length} bytes held whole checkpoint lines`), store.damage() ?? 'no damage');
        assert.deepEqual(readFileSync(path), found, 'kept as found');
        await assert.rejects(store.add(signed(20)), /line 3 .* is damaged/);
      } finally {
        await store.close();
      }
    }
  });

  it('cuts it when it begins at the mark\'s end or after, or when the mark went with a file moved aside', async () => {
    const { dir, path } = await fileOf(lines);
    appendFileSync(path, JSON.stringify(signed(20)).slice(0, 30));
    const keeper = markOfWhole();
    await (await FileCheckpointStore.open(dir, key, keeper)).close();
    assert.deepEqual(readFileSync(path), whole, 'a torn write after the mark is cut');
    renameSync(path, `${path}.aside`);
    await (await FileCheckpointStore.open(dir, key, keeper)).close();
    writeFileSync(path, JSON.stringify(signed(3)).slice(0, 30));
    const begun = await FileCheckpointStore.open(dir, key, keeper);
    try {
      assert.equal(begun.damage(), null);
      assert.equal(readFileSync(path).length, 0, 'the new file\'s torn first write is cut');
    } finally {
      await begun.close();
    }
  });
});

describe('what a start says of checkpoints.log', () => {
  /** A clock that moves on a second each time it is read: the store reads it once per line it checks. */
  const steppingClock = () => {
    let at = 0;
    return () => (at += 1_000);
  };

  it('logs progress every 5 s of its clock while it checks every line, then how many it checked and why all', async () => {
    const lines = Array.from({ length: 12 }, (_, i) => JSON.stringify(signed(i + 1)));
    const { dir, path } = await fileOf(lines);
    const offset = (line: number) => lines.slice(0, line).reduce((sum, text) => sum + text.length + 1, 0);
    const size = offset(12);
    const said: string[] = [];
    const store = await FileCheckpointStore.open(dir, key, heldMark(null), { report: (line) => said.push(line), now: steppingClock() });
    try {
      // The clock reads 1 s at the start, 2 s as the pass begins (a line due at 7 s), then 3 s, 4 s ... before each line.
      assert.deepEqual(said, [
        `audit: checking ${path}: 4 of about ${Math.round((4 * size) / offset(4))} lines read, ${offset(4)} of ${size} bytes (${Math.floor((offset(4) / size) * 100)}%), 4 signatures checked`,
        `audit: checking ${path}: 9 of about ${Math.round((9 * size) / offset(9))} lines read, ${offset(9)} of ${size} bytes (${Math.floor((offset(9) / size) * 100)}%), 9 signatures checked`,
        `audit: ${path}: checked the signatures of 12 checkpoint lines and took 0 as checked by the index's mark, in 14000 ms (no mark in the index: every line checked)`,
      ]);
      assert.deepEqual(await store.latest(), signed(12));
    } finally {
      await store.close();
    }
  });

  it('says how many lines the mark vouched for and how many it checked after them', async () => {
    const lines = Array.from({ length: 12 }, (_, i) => JSON.stringify(signed(i + 1)));
    const { dir, path } = await fileOf(lines);
    const keeper = heldMark(null);
    await (await FileCheckpointStore.open(dir, key, keeper)).close();
    appendFileSync(path, `${JSON.stringify(signed(13))}\n`);
    const said: string[] = [];
    const store = await FileCheckpointStore.open(dir, key, keeper, { report: (line) => said.push(line), now: () => 0 });
    await store.close();
    assert.deepEqual(said, [`audit: ${path}: checked the signatures of 1 checkpoint lines and took 12 as checked by the index's mark, in 0 ms`]);
  });
});

describe('fileLines', () => {
  it('reads lines that cross blocks whole, with their offsets, and flags a last line without a newline', async () => {
    const dir = await tempDir();
    const path = join(dir, 'lines');
    writeFileSync(path, 'one\ntwo and more\n\nthree-ish');
    const fh = await open(path, 'r');
    try {
      const seen = [];
      for await (const line of fileLines(fh, 3)) seen.push([line.bytes.toString(), line.offset, line.number, line.ended]);
      assert.deepEqual(seen, [['one', 0, 1, true], ['two and more', 4, 2, true], ['', 17, 3, true], ['three-ish', 18, 4, false]]);
    } finally {
      await fh.close();
    }
  });
});

describe('newestCheckpointSize', () => {
  it('reads the last line of a checkpoint\'s shape, passing over one whose tree_size was changed', async () => {
    const lines = [5, 10, 12].map((size) => JSON.stringify(signed(size)));
    assert.equal(await newestCheckpointSize((await fileOf(lines)).dir), 12);
    const changed = lines[2].replace('"tree_size":12', '"tree_size":92');
    assert.equal(await newestCheckpointSize((await fileOf([...lines.slice(0, 2), changed])).dir), 10);
    assert.equal(await newestCheckpointSize(await tempDir()), 0);
  });
});
