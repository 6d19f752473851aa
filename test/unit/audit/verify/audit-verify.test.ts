// Chain verification: every kind of tampering is found with its exact first_broken_seq, whatever the chunking.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { ZERO_HASH } from '../../../../src/audit/record/audit-log.js';
import { HASH_OK, LINK_OK, SHAPE_OK, scanChunk } from '../../../../src/audit/verify/chunk-scan.js';
import { fileChunks, lineChunks } from '../../../../src/audit/verify/chunk-sources.js';
import { verifyChunks } from '../../../../src/audit/verify/verify-chunks.js';
import { VerifyPool } from '../../../../src/audit/verify/verify-pool.js';
import { WALLET_A, sampleEntry } from '../../../support/audit-fixtures.js';
import { sealRecord } from '../../../../src/audit/record/record.js';
import { sha256Hex } from '../../../../src/audit/record/sha256.js';
import {
  buildChain, deleteRecord, editAndRehash, fileText, flipByte, nodeDigest, storedHashOf, swapRecords, truncateTail, verifyLines,
} from '../../../support/audit-verify-chains.js';

const chain = buildChain(60);
const { lines, head } = chain;
const healthy = { total: 60, tampered: 0, healthy: true, firstBrokenSeq: null, problems: [] };

describe('chain verification: tampering', () => {
  it('passes an intact chain, checking its end against the head', () => {
    assert.deepEqual(verifyLines(lines, { head }), healthy);
  });

  it('finds a flipped byte in a record at that record only', () => {
    const report = verifyLines(flipByte(lines, 17), { head });
    assert.deepEqual(report, {
      total: 60, tampered: 1, healthy: false, firstBrokenSeq: 17,
      problems: [{ seq: 17, hash: storedHashOf(lines[16]), problem: 'hash_mismatch' }],
    });
  });

  it('finds a flipped byte in a stored hash at that record; the next still links to its real hash', () => {
    const tampered = flipByte(lines, 17, true);
    const report = verifyLines(tampered, { head });
    assert.deepEqual(report.problems, [{ seq: 17, hash: storedHashOf(tampered[16]), problem: 'hash_mismatch' }]);
    assert.equal(report.firstBrokenSeq, 17);
    assert.equal(report.tampered, 1);
  });

  it('finds a deleted record at the one after the hole, as a gap in seq', () => {
    const report = verifyLines(deleteRecord(lines, 17), { head });
    assert.deepEqual(report, {
      total: 59, tampered: 1, healthy: false, firstBrokenSeq: 18,
      problems: [{ seq: 18, hash: storedHashOf(lines[17]), problem: 'seq_gap' }],
    });
  });

  it('finds two swapped neighbours as a reorder starting at the first one out of place', () => {
    const report = verifyLines(swapRecords(lines, 17, 18), { head });
    assert.deepEqual(report, {
      total: 60, tampered: 3, healthy: false, firstBrokenSeq: 18,
      problems: [
        { seq: 18, hash: storedHashOf(lines[17]), problem: 'reorder' },
        { seq: 17, hash: storedHashOf(lines[16]), problem: 'reorder' },
        { seq: 19, hash: storedHashOf(lines[18]), problem: 'reorder' },
      ],
    });
  });

  it('finds two records swapped far apart, and only the four links they break', () => {
    const report = verifyLines(swapRecords(lines, 10, 40), { head });
    assert.deepEqual(report.problems.map((p) => [p.seq, p.problem]), [[40, 'reorder'], [11, 'reorder'], [10, 'reorder'], [41, 'reorder']]);
    assert.equal(report.firstBrokenSeq, 40);
  });

  it('finds a truncated tail against the head, counting each missing record', () => {
    const report = verifyLines(truncateTail(lines, 3), { head });
    assert.deepEqual(report, {
      total: 57, tampered: 3, healthy: false, firstBrokenSeq: 58,
      problems: [{ seq: 58, hash: null, problem: 'truncated' }],
    });
    assert.deepEqual(verifyLines(truncateTail(lines, 3)), { ...healthy, total: 57 }, 'without an anchor a cut tail is invisible');
  });

  it('finds an edited, re-hashed record at the next record, whose link still names the original', () => {
    const report = verifyLines(editAndRehash(lines, 17), { head });
    assert.deepEqual(report, {
      total: 60, tampered: 1, healthy: false, firstBrokenSeq: 18,
      problems: [{ seq: 18, hash: storedHashOf(lines[17]), problem: 'broken_link' }],
    });
  });

  it('checks a receipt from the middle of the chain: that record must be there with that hash', () => {
    const receipt = { seq: 30, hash: storedHashOf(lines[29]) };
    assert.deepEqual(verifyLines(lines, { head: receipt }), healthy);
    assert.deepEqual(verifyLines(lines, { head: { seq: 30, hash: ZERO_HASH } }).problems, [{ seq: 30, hash: receipt.hash, problem: 'head_mismatch' }]);
    assert.deepEqual(verifyLines(lines, { head: { seq: 30 } }), healthy, 'a bare seq checks the length only');
  });

  it('finds an edited, re-hashed last record against the head', () => {
    const tampered = editAndRehash(lines, 60);
    const report = verifyLines(tampered, { head });
    assert.deepEqual(report.problems, [{ seq: 60, hash: storedHashOf(tampered[59]), problem: 'head_mismatch' }]);
    assert.equal(report.firstBrokenSeq, 60);
  });

  it('reports a line that is not a record as unparseable at the seq expected there', () => {
    const tampered = [...lines];
    tampered[16] = Buffer.from('not a record');
    const report = verifyLines(tampered, { head });
    assert.deepEqual(report.problems, [
      { seq: 17, hash: null, problem: 'unparseable' },
      { seq: 18, hash: storedHashOf(lines[17]), problem: 'broken_link' },
    ]);
  });

  it('checks the first record against the anchor it must link to', () => {
    const anchor = { seq: 9, hashes: [storedHashOf(lines[8])] };
    assert.deepEqual(verifyLines(lines.slice(9), { anchor, head }), { ...healthy, total: 51 });
    const wrong = { seq: 9, hashes: [ZERO_HASH] };
    assert.deepEqual(verifyLines(lines.slice(9), { anchor: wrong, head }).problems, [{ seq: 10, hash: storedHashOf(lines[9]), problem: 'broken_link' }]);
  });

  it('keeps at most 100 problems but counts every failing record', () => {
    const big = buildChain(150);
    const tampered = big.lines.map((line) => Buffer.concat([line.subarray(0, 70), Buffer.from('x'), line.subarray(71)]));
    const report = verifyLines(tampered, { head: big.head });
    assert.equal(report.tampered, 150);
    assert.equal(report.problems.length, 100);
    assert.equal(report.firstBrokenSeq, 1);
  });
});

describe('chain verification: the wallet form', () => {
  const walletLines = lines.filter((line) => line.includes(`"wallet":"${WALLET_A.toLowerCase()}"`));

  it('follows wallet_prev_hash and only asks seqs to increase', () => {
    assert.deepEqual(verifyLines(walletLines, { field: 'wallet_prev_hash' }), { ...healthy, total: 20 });
  });

  it('finds a deleted wallet record at the next one, whose link breaks', () => {
    const report = verifyLines(walletLines.filter((_, i) => i !== 5), { field: 'wallet_prev_hash' });
    assert.deepEqual(report.problems, [{ seq: 19, hash: storedHashOf(walletLines[6]), problem: 'broken_link' }]);
  });
});

describe('chunk scan', () => {
  it('flags each line and reads seq and link', () => {
    const bytes = fileText(lines.slice(0, 3));
    const scan = scanChunk(bytes, 'prev_hash', nodeDigest);
    assert.equal(scan.count, 3);
    assert.deepEqual([...scan.seqs], [1, 2, 3]);
    assert.deepEqual([...scan.flags], [SHAPE_OK | HASH_OK, SHAPE_OK | HASH_OK | LINK_OK, SHAPE_OK | HASH_OK | LINK_OK]);
    assert.equal(scan.firstLink, ZERO_HASH);
    assert.equal(scan.lastStored, storedHashOf(lines[2]));
    assert.equal(scan.lastComputed, storedHashOf(lines[2]));
  });

  it('reads the link of format 2 records, which carry facts_hash and format before prev_hash', () => {
    const walletHeads = new Map<string, string>();
    let prev = ZERO_HASH;
    const format2: Buffer[] = [];
    for (let n = 0; n < 3; n++) {
      const entry = { ...sampleEntry(WALLET_A, n), facts: { hash: String(n).repeat(64), text: '{}' } };
      const { record, line } = sealRecord(entry, n + 1, 1_767_225_600_000, prev, walletHeads.get(WALLET_A.toLowerCase()) ?? ZERO_HASH, sha256Hex);
      walletHeads.set(WALLET_A.toLowerCase(), record.hash);
      prev = record.hash;
      format2.push(line.subarray(0, line.length - 1));
    }
    const scan = scanChunk(fileText(format2), 'prev_hash', nodeDigest);
    assert.deepEqual([...scan.flags], [SHAPE_OK | HASH_OK, SHAPE_OK | HASH_OK | LINK_OK, SHAPE_OK | HASH_OK | LINK_OK]);
    assert.equal(scan.firstLink, ZERO_HASH);
    const relinked = Buffer.from(format2[2].toString('utf8').replace(storedHashOf(format2[1]), 'e'.repeat(64)));
    assert.equal(scanChunk(fileText([format2[0], format2[1], relinked]), 'prev_hash', nodeDigest).flags[2] & LINK_OK, 0);
  });

  it('finds prev_hash by search when a string holds an escaped quote', () => {
    const { hash: _h, ...body } = JSON.parse(lines[0].toString('utf8', 65)) as Record<string, unknown>;
    const text = JSON.stringify({ ...body, channel: 'we"ird' });
    const line = Buffer.from(`${'0'.repeat(64)} ${text}`);
    const scan = scanChunk(line, 'prev_hash', nodeDigest);
    assert.equal(scan.firstLink, ZERO_HASH);
    assert.equal(scan.seqs[0], 1);
  });
});

describe('chain verification: chunk boundaries', () => {
  it('gives the same report however the lines are cut into chunks', () => {
    const tamperings = [
      (l: Buffer[]) => flipByte(l, 20), (l: Buffer[]) => deleteRecord(l, 31), (l: Buffer[]) => swapRecords(l, 12, 13),
      (l: Buffer[]) => editAndRehash(l, 44), (l: Buffer[]) => truncateTail(l, 2), (l: Buffer[]) => l,
    ];
    fc.assert(fc.property(fc.integer({ min: 0, max: tamperings.length - 1 }), fc.integer({ min: 1, max: 61 }), (which, perChunk) => {
      const tampered = tamperings[which](lines);
      assert.deepEqual(verifyLines(tampered, { head, perChunk }), verifyLines(tampered, { head }));
    }), { numRuns: 60 });
  });
});

describe('chain verification on the pool', () => {
  const dirs: string[] = [];
  const pool = new VerifyPool(2);
  after(async () => {
    await pool.close();
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it('verifies a file read in small blocks the same as in-process, lines crossing block ends', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'audit-verify-test-'));
    dirs.push(dir);
    const file = join(dir, 'audit.log');
    const tampered = swapRecords(flipByte(lines, 5), 30, 31);
    writeFileSync(file, fileText(tampered));
    const progress: number[] = [];
    const report = await verifyChunks(pool, fileChunks(file, 1500), { field: 'prev_hash', head, onProgress: (p) => progress.push(p.records) });
    assert.deepEqual(report, verifyLines(tampered, { head }));
    assert.equal(progress.at(-1), 60);
    assert.ok(progress.length > 10, 'many blocks');
  });

  it('verifies packed lines the same as in-process', async () => {
    const report = await verifyChunks(pool, lineChunks(editAndRehash(lines, 3), 7), { field: 'prev_hash', head });
    assert.deepEqual(report, verifyLines(editAndRehash(lines, 3), { head }));
  });

  it('refuses work once closed', async () => {
    const closed = new VerifyPool(1);
    await closed.close();
    await assert.rejects(verifyChunks(closed, lineChunks(lines, 10), { field: 'prev_hash' }), /pool is closed/);
  });
});
