// Brings the LMDB index up to date with audit.log at open: the log alone decides (ARCHITECTURE.md "File audit index").
//
// The last indexed line must still be in the log, whole and with its hash: then only the lines
// after it are read and indexed (a crash lost nothing else, since a line is indexed only after it
// was written). Otherwise (no index, an index ahead of a log an operator cut back, a log changed
// by hand since the last clean close) the index is emptied and rebuilt from the whole log.
import type { FileHandle } from 'node:fs/promises';
import { ZERO_HASH, type AuditHead } from '../record/audit-log.js';
import { parseLine } from '../record/record.js';
import { isSha256Hex } from '../record/sha256.js';
import { quickParse } from './file-scan.js';
import { fileLines, readAt } from './file-lines.js';
import type { IndexedLine, LogIdentity, LogIndex } from './log-index.js';
import { PROGRESS_MS, StartProgress, type StartReports } from './start-progress.js';

/** How open brought the index up to date; worth a log line when `rebuilt`. */
export interface IndexReport {
  /** The index did not match the log (missing, ahead of it, or the log changed by hand) and was rebuilt from the log. */
  rebuilt: boolean;
  /** Lines read from the log to bring the index up to date (0 after a clean close). */
  indexedLines: number;
}

export interface IndexReady extends IndexReport {
  records: number;
  suspectLines: number;
  head: AuditHead;
}

/** Lines indexed per transaction while catching up. */
const CATCH_UP_BATCH = 8192;
const READ_BLOCK = 4 * 1024 * 1024;

const sameLog = (a: LogIdentity, b: LogIdentity) => a.size === b.size && a.mtimeNs === b.mtimeNs && a.ino === b.ino;

/** The index's last line is a whole line of the good part of the log, holding the record the index names. */
async function lastLineMatches(fh: FileHandle, index: LogIndex, goodEnd: number): Promise<boolean> {
  if (index.count === 0) return true;
  const { offset, length, hash } = index.entry(index.count);
  if (offset + length > goodEnd || index.entry(1).offset !== 0) return false;
  const bytes = await readAt(fh, offset > 0 ? offset - 1 : 0, length + (offset > 0 ? 1 : 0));
  const line = offset > 0 ? bytes.subarray(1) : bytes;
  if ((offset > 0 && bytes[0] !== 0x0a) || line.length !== length || line[length - 1] !== 0x0a) return false;
  return hash === null || line.toString('latin1', 0, 64) === hash;
}

/** Whether the index can be kept, as is or with the lines after its last one indexed. */
async function trusted(fh: FileHandle, index: LogIndex, goodEnd: number, found: LogIdentity): Promise<boolean> {
  const closed = index.closedWith();
  // A log changed since the service closed it cleanly was changed by someone else: read it all again.
  if (closed !== null && !sameLog(closed, found)) return false;
  return lastLineMatches(fh, index, goodEnd);
}

/** Indexes the lines after the indexed ones up to goodEnd, in batches, telling the operator how far a long run has come. */
async function catchUp(fh: FileHandle, index: LogIndex, goodEnd: number, { report, now }: StartReports): Promise<number> {
  const last = index.count > 0 ? index.entry(index.count) : { offset: 0, length: 0 };
  const from = last.offset + last.length;
  if (from === 0 && goodEnd > 0) report(`audit: indexing audit.log from its start (${goodEnd} bytes; progress every ${PROGRESS_MS / 1000} s)`);
  const progress = new StartProgress(now, report, goodEnd - from, (read) => `audit: indexing audit.log: ${read}`);
  let batch: IndexedLine[] = [];
  let lines = 0;
  for await (const { bytes, offset } of fileLines(fh, READ_BLOCK, from)) {
    if (offset >= goodEnd) break;
    progress.at(lines, offset - from);
    const tail = quickParse(bytes, 0, bytes.length);
    const hash = bytes.toString('latin1', 0, 64);
    const readable = tail !== null && isSha256Hex(hash);
    // The open scan's rule since before the index: a line that does not parse, or sits at the wrong seq, is suspect.
    const suspect = !readable || tail.seq !== index.count + batch.length + 1;
    batch.push({ offset, length: bytes.length + 1, wallet: readable ? tail.wallet : null, hash: readable ? hash : null, suspect });
    lines++;
    if (batch.length < CATCH_UP_BATCH) continue;
    index.add(index.link(batch));
    batch = [];
  }
  index.add(index.link(batch));
  return lines;
}

/** The last line is whole and good (the caller cut anything else), so it parses. */
async function headOf(fh: FileHandle, index: LogIndex): Promise<AuditHead> {
  if (index.count === 0) return { seq: 0, hash: ZERO_HASH };
  const { offset, length } = index.entry(index.count);
  const record = parseLine(await readAt(fh, offset, length - 1));
  return { seq: record.seq, hash: record.hash };
}

/**
 * Makes the index match the good part of the log (`goodEnd`; the caller cut anything after it).
 * `found` is audit.log as open found it, before any cut. The clean-close mark is dropped here:
 * from now on the log changes, and a crash leaves the index to be caught up, not trusted whole.
 */
export async function bringIndexUp(
  fh: FileHandle, index: LogIndex, goodEnd: number, found: LogIdentity, reports: StartReports,
): Promise<IndexReady> {
  // An index of another layout is not read at all: its entries are not what this code decodes.
  const otherLayout = index.count > 0 && !index.ofThisLayout;
  const keep = !otherLayout && await trusted(fh, index, goodEnd, found);
  const fromNothing = !keep || index.count === 0;
  if (otherLayout) reports.report(`audit: the index (${index.path}) is of an older layout; rebuilding it from the whole log (the checkpoints already checked stay checked)`);
  else if (!keep && index.count > 0) reports.report(`audit: the index (${index.path}) does not match audit.log; rebuilding it from the whole log`);
  // What checkpoints.log's check found is no fact of the index's layout: a start re-hashes the marked bytes anyway.
  const checked = otherLayout ? index.checkedCheckpoints() : null;
  if (!keep) index.clear();
  if (checked !== null) index.markCheckpoints(checked);
  index.markClosed(null);
  const indexedLines = await catchUp(fh, index, goodEnd, reports);
  return { records: index.count, suspectLines: index.suspectLines, head: await headOf(fh, index), rebuilt: fromNothing && indexedLines > 0, indexedLines };
}
