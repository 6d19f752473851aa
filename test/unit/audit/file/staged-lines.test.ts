// The index's staged lines: what a read sees between a group commit and the log's next sync, and what one commit takes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StagedLines } from '../../../../src/audit/file/staged-lines.js';
import type { LinkedLine } from '../../../../src/audit/file/log-index.js';

const line = (offset: number, wallet: string | null, prev = 0): LinkedLine => ({ offset, length: 10, wallet, hash: offset.toString(16).padStart(64, '0'), prev });

describe('staged index lines', () => {
  it('places each staged line at its seq, after the committed ones', () => {
    const staged = new StagedLines(11);
    staged.stage([line(100, '0xa'), line(110, '0xb')], []);
    staged.stage([line(120, '0xa')], []);
    assert.equal(staged.size, 3);
    assert.equal(staged.entry(10), undefined, 'seq 10 is committed, not staged');
    assert.equal(staged.entry(11)?.offset, 100);
    assert.equal(staged.entry(13)?.offset, 120);
    assert.equal(staged.entry(14), undefined);
  });

  it("keeps each wallet's newest staged seq, and each line's link to the line before it", () => {
    const staged = new StagedLines(8);
    staged.stage([line(0, '0xa', 6), line(10, '0xb'), line(20, '0xa', 8)], []);
    staged.stage([line(30, null), line(40, '0xa', 10)], []);
    assert.deepEqual([8, 9, 10, 11, 12].map((seq) => staged.entry(seq)?.prev), [6, 0, 8, 0, 10]);
    assert.equal(staged.newest('0xa'), 12);
    assert.equal(staged.newest('0xb'), 9);
    assert.equal(staged.newest('0xc'), undefined);
  });

  it('commits only the lines a sync covered, with the facts marks of their groups', () => {
    const staged = new StagedLines(1);
    staged.stage([line(0, '0xa'), line(10, '0xb')], [{ page: 0, offset: 0 }]);
    staged.stage([line(20, '0xa')], [{ page: 1, offset: 500 }]);
    const taken = staged.upTo(2);
    assert.deepEqual(taken.lines.map((l) => l.offset), [0, 10]);
    assert.deepEqual(taken.marks, [{ page: 0, offset: 0 }], "the second group's mark waits for its line");
    staged.committed(taken.lines.length);
    assert.equal(staged.size, 1);
    assert.equal(staged.entry(2), undefined);
    assert.equal(staged.entry(3)?.offset, 20);
    assert.equal(staged.newest('0xa'), 3);
    assert.equal(staged.newest('0xb'), undefined, "the wallet's newest seq is committed: it is read from LMDB, not here");
    assert.deepEqual(staged.factsMark(), { page: 1, offset: 500 });
    assert.equal(staged.factsMark(0), undefined, 'page 0 is committed');
  });

  it('finds the newest staged facts mark not after a page', () => {
    const staged = new StagedLines(1);
    staged.stage([line(0, '0xa')], [{ page: 2, offset: 40 }]);
    staged.stage([line(10, '0xa')], [{ page: 4, offset: 90 }]);
    assert.deepEqual(staged.factsMark(3), { page: 2, offset: 40 });
    assert.deepEqual(staged.factsMark(9), { page: 4, offset: 90 });
    assert.equal(staged.factsMark(1), undefined);
  });

  it('forgets everything on a reset', () => {
    const staged = new StagedLines(1);
    staged.stage([line(0, '0xa')], [{ page: 0, offset: 0 }]);
    staged.reset(1);
    assert.equal(staged.size, 0);
    assert.equal(staged.entry(1), undefined);
    assert.equal(staged.newest('0xa'), undefined);
    assert.equal(staged.factsMark(), undefined);
  });
});
