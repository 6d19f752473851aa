// What a start says while it indexes audit.log and facts.log from their start: a progress line every 5 s of the clock
// it is given (lines read of about the total, bytes read of the bytes to read and their share), so a start of minutes
// over a long log is seen to be working.
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FileAuditLog } from '../../../../src/audit/file/file-audit-log.js';
import { factsEntry } from '../../../support/audit-fixtures.js';
import { useTempDirs } from '../../../support/temp-dirs.js';

const tempDir = useTempDirs('catch-up-progress-');

/** A clock that moves on a second each time it is read: a pass reads it as it begins and once before each line. */
const steppingClock = () => {
  let at = 0;
  return () => (at += 1_000);
};

/** Byte offset where each line of the file begins, read independently of src/. */
function lineStarts(path: string): { starts: number[]; size: number } {
  const bytes = readFileSync(path);
  const starts = [0];
  for (let at = bytes.indexOf(0x0a); at !== -1 && at + 1 < bytes.length; at = bytes.indexOf(0x0a, at + 1)) starts.push(at + 1);
  return { starts, size: bytes.length };
}

/**
 * The progress lines of one pass over `name`: the pass's first clock reading makes a line due 5 s later, reached
 * before line 5 (4 read), then before lines 10, 15 ...
 */
function progressLines(name: string, path: string): string[] {
  const { starts, size } = lineStarts(path);
  const said: string[] = [];
  for (let read = 4; read < starts.length; read += 5) {
    const bytes = starts[read];
    said.push(`audit: indexing ${name}: ${read} of about ${Math.round((read * size) / bytes)} lines read, ${bytes} of ${size} bytes (${Math.floor((bytes / size) * 100)}%)`);
  }
  return said;
}

describe('what a start says while it indexes the audit log from its start', () => {
  it('logs progress every 5 s of its clock while it indexes audit.log and then facts.log', async () => {
    const dir = await tempDir();
    const log = await FileAuditLog.open(dir, { fsync: 'always' });
    for (let n = 1; n <= 12; n++) await log.append(factsEntry(n));
    await log.close();
    rmSync(join(dir, 'index'), { recursive: true });
    const said: string[] = [];
    const reopened = await FileAuditLog.open(dir, { fsync: 'always', now: steppingClock(), report: (line) => said.push(line) });
    try {
      const logged = progressLines('audit.log', join(dir, 'audit.log'));
      const facts = progressLines('facts.log', join(dir, 'facts.log'));
      assert.ok(logged.length >= 2 && facts.length >= 2, `${logged.length} and ${facts.length} progress lines expected`);
      assert.deepEqual(said, [
        `audit: indexing audit.log from its start (${lineStarts(join(dir, 'audit.log')).size} bytes; progress every 5 s)`,
        ...logged,
        `audit: indexing facts.log from its start (${lineStarts(join(dir, 'facts.log')).size} bytes; progress every 5 s)`,
        ...facts,
      ]);
      assert.equal((await reopened.head()).seq, 12);
    } finally {
      await reopened.close();
    }
  });
});
