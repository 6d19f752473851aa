// Opens the audit index against audit.log: trusts it, finishes what a crash interrupted, or rebuilds it.
//
// The index is derived data: audit.log alone decides. It is trusted when it was
// closed cleanly and the log is exactly as it was then (size, mtime, inode), or when
// the process that last wrote it ran in this boot (a process crash loses no write
// the kernel accepted; only a power cut does). Then the wallet heads after the
// table's mark are replayed and the lines the index has not seen are indexed. In
// every other case (a power cut, a log changed or cut by hand, an index from
// elsewhere or none) it is rebuilt by reading the whole log once.
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { ZERO_HASH, type AuditHead } from '../record/audit-log.js';
import { AuditIndex, walletKey, type IndexBatch } from './audit-index.js';
import { forEachLineSync, quickParse } from './file-scan.js';
import { RecordIndex, type IndexHeader, type LogIdentity } from './record-index.js';
import { parseLine } from '../record/record.js';
import { isSha256Hex } from '../record/sha256.js';
import { WalletTable } from './wallet-table.js';

export interface IndexInit {
  dir: string;
  logPath: string;
  /** Where the good part of audit.log ends; the caller has already cut anything after it. */
  goodEnd: number;
  /** audit.log as it was found, before any cut. */
  identity: LogIdentity;
  /** Sync the index when opening and closing (every fsync mode but 'off'). */
  durable: boolean;
  /** Size of the wallet filter the thread fills at open (wallet-filter.ts); default FILTER_BYTES. */
  filterBytes?: number;
}

/** How open brought the index up to date; worth a log line when `rebuilt`. */
export interface IndexReport {
  /** The index could not be trusted (a power cut, a log changed by hand, none yet) and was rebuilt from the log. */
  rebuilt: boolean;
  /** Lines read from the log to bring the index up to date (0 after a clean close). */
  indexedLines: number;
}

export interface IndexReady extends IndexReport {
  records: number;
  suspectLines: number;
  head: AuditHead;
}

const CATCH_UP_BATCH = 8192;

function currentBootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'latin1').trim();
  } catch {
    return ''; // unknown: an index left open is never trusted
  }
}

function trusts(header: IndexHeader, identity: LogIdentity, bootId: string): boolean {
  if (header.clean) {
    const was = header.identity;
    return was.size === identity.size && was.mtimeNs === identity.mtimeNs && was.ino === identity.ino;
  }
  return bootId !== '' && header.bootId === bootId;
}

function byteAt(fd: number, position: number): number {
  const one = Buffer.alloc(1);
  return readSync(fd, one, 0, 1, position) === 1 ? one[0] : -1;
}

/** The index's first and last entries are whole lines inside the good part of the log. */
function fitsLog(fd: number, records: RecordIndex, table: WalletTable, goodEnd: number): boolean {
  if (table.applied > records.count) return false;
  if (records.count === 0) return true;
  const last = records.entry(records.count);
  const end = last.offset + last.length;
  return records.entry(1).offset === 0 && end <= goodEnd && byteAt(fd, end - 1) === 0x0a &&
    (last.offset === 0 || byteAt(fd, last.offset - 1) === 0x0a);
}

/** The wallet heads of positions after the table's mark, which a crash may have left unwritten. */
function replay(fd: number, index: AuditIndex): void {
  const { records, table } = index;
  if (table.applied >= records.count) return;
  const from = records.entry(table.applied + 1).offset;
  const last = records.entry(records.count);
  let pos = table.applied;
  forEachLineSync(fd, from, last.offset + last.length, (data, start, end) => {
    pos++;
    const tail = quickParse(data, start, end);
    const hash = data.toString('latin1', start, start + 64);
    if (tail !== null && isSha256Hex(hash)) table.put(walletKey(tail.wallet), pos, Buffer.from(hash, 'hex'), true);
  });
  table.markApplied(records.count);
}

/** Indexes the lines after the indexed ones, in batches, exactly as appends are indexed. */
function catchUp(fd: number, index: AuditIndex, goodEnd: number): number {
  const { records } = index;
  const last = records.count > 0 ? records.entry(records.count) : { offset: 0, length: 0 };
  let batch: Omit<IndexBatch, 'prevs'> = { firstOffset: last.offset + last.length, lengths: [], wallets: [], hashes: [] };
  let lines = 0;
  forEachLineSync(fd, batch.firstOffset, goodEnd, (data, start, end, position) => {
    if (batch.lengths.length === 0) batch.firstOffset = position;
    const tail = quickParse(data, start, end);
    const hash = data.toString('latin1', start, start + 64);
    const readable = tail !== null && isSha256Hex(hash);
    // The open scan's rule since before the index: a line that does not parse, or sits at the wrong seq, is suspect.
    if (!readable || tail.seq !== records.count + batch.lengths.length + 1) index.suspectLines++;
    batch.lengths.push(end - start + 1);
    batch.wallets.push(readable ? tail.wallet : null);
    batch.hashes.push(readable ? hash : null);
    lines++;
    if (batch.lengths.length < CATCH_UP_BATCH) return;
    index.append(batch);
    batch = { firstOffset: 0, lengths: [], wallets: [], hashes: [] };
  });
  if (batch.lengths.length > 0) index.append(batch);
  return lines;
}

/** The last line is whole and good (the caller cut anything else), so it parses. */
function headOf(fd: number, records: RecordIndex): AuditHead {
  if (records.count === 0) return { seq: 0, hash: ZERO_HASH };
  const last = records.entry(records.count);
  const line = Buffer.alloc(last.length - 1);
  readSync(fd, line, 0, line.length, last.offset);
  const record = parseLine(line);
  return { seq: record.seq, hash: record.hash };
}

/** Brings a trusted index up to date, or an untrusted one (emptied here) up from nothing. */
function bringUp(fd: number, parts: Parts, trusted: boolean, init: IndexInit): { index: AuditIndex; ready: IndexReady } {
  const { records, table, header, bootId } = parts;
  if (!trusted) {
    records.reset();
    table.reset();
  }
  const index = new AuditIndex(records, table, trusted && header ? header.suspectLines : 0, init.durable, bootId);
  index.markOpen();
  replay(fd, index);
  const indexedLines = catchUp(fd, index, init.goodEnd);
  index.markOpen();
  return { index, ready: { records: records.count, suspectLines: index.suspectLines, head: headOf(fd, records), rebuilt: !trusted, indexedLines } };
}

interface Parts {
  records: RecordIndex;
  table: WalletTable;
  header: IndexHeader | null;
  bootId: string;
}

export function openIndex(init: IndexInit): { index: AuditIndex; ready: IndexReady } {
  const bootId = currentBootId();
  const { index: records, header } = RecordIndex.open(init.dir);
  const { table, intact } = WalletTable.open(init.dir);
  const parts = { records, table, header, bootId };
  const fd = openSync(init.logPath, 'r');
  try {
    try {
      if (intact && header !== null && trusts(header, init.identity, bootId) && fitsLog(fd, records, table, init.goodEnd)) {
        return bringUp(fd, parts, true, init);
      }
    } catch {
      // The index is derived from the log: a damaged one is rebuilt, never a reason not to start.
    }
    return bringUp(fd, parts, false, init);
  } catch (error) {
    records.close();
    table.close();
    throw error;
  } finally {
    closeSync(fd);
  }
}
