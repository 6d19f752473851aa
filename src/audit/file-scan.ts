// Open-time scan of audit.log: finds the torn tail, the head, wallet heads and line offsets.
import type { FileHandle } from 'node:fs/promises';
import { ZERO_HASH, type AuditHead } from './audit-log.js';
import { lineHashMatches, parseLine } from './record.js';
import type { Sha256Hex } from './sha256.js';

const NEWLINE = 0x0a;
const CHUNK = 4 * 1024 * 1024;
const BACK_CHUNK = 64 * 1024;
/** More bad trailing lines than this is not a torn write: refuse to open rather than cut. */
const MAX_BAD_TAIL_LINES = 8;
// Canonical keys are sorted (RFC 8785 section 3.2.3), so after `request` only the
// scalars risk_score, seq, tier, ts, wallet, wallet_prev_hash follow. Strings escape
// every `"`, so the LAST `,"seq":` (and `,"wallet":"`) in a line is the top-level key.
const SEQ_KEY = Buffer.from(',"seq":');
const WALLET_KEY = Buffer.from(',"wallet":"');

/** What open() found and repaired; the caller logs it. */
export interface OpenReport {
  /** Good records kept in the log. */
  records: number;
  /** Bytes cut from the end of the file (0 when nothing was torn). */
  truncatedBytes: number;
  /** Why bytes were cut, or null when the tail was clean. */
  reason: string | null;
  /** Lines before the tail that failed the quick parse or sit at the wrong seq; left for verification. */
  suspectLines: number;
  /** Wall time of the scan. */
  scanMs: number;
}

/** A growing array of line start offsets; Float64 because files may pass 4 GiB. */
export class LineOffsets {
  private starts = new Float64Array(1 << 14);
  count = 0;

  push(offset: number): void {
    if (this.count === this.starts.length) {
      const grown = new Float64Array(this.starts.length * 2);
      grown.set(this.starts);
      this.starts = grown;
    }
    this.starts[this.count++] = offset;
  }

  start(line: number): number {
    return this.starts[line];
  }
}

/** One wallet's chain: its last hash (the next wallet_prev_hash) and its line numbers. */
export interface WalletChain {
  hash: string;
  lines: number[];
}

export interface ScanResult {
  offsets: LineOffsets;
  wallets: Map<string, WalletChain>;
  head: AuditHead;
  /** Byte length of the good part; the file must be cut to this. */
  goodEnd: number;
  report: OpenReport;
}

async function readAt(fh: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await fh.read(buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

/** Index of the last newline strictly before `end`, or -1. */
async function lastNewlineBefore(fh: FileHandle, end: number): Promise<number> {
  for (let to = end; to > 0; to -= BACK_CHUNK) {
    const from = Math.max(0, to - BACK_CHUNK);
    const at = (await readAt(fh, from, to - from)).lastIndexOf(NEWLINE);
    if (at !== -1) return from + at;
  }
  return -1;
}

function lineProblem(line: Buffer, sha256hex: Sha256Hex): string | null {
  try {
    parseLine(line);
  } catch (error) {
    return (error as Error).message;
  }
  return lineHashMatches(line, sha256hex) ? null : 'hash does not match its bytes';
}

/**
 * Finds where the good part ends: drops bytes after the last newline (a write cut
 * short) and then complete trailing lines that do not parse or whose hash does not
 * match. Only the tail is hashed here; the middle is the verifier's job.
 */
async function findGoodEnd(fh: FileHandle, size: number, sha256hex: Sha256Hex): Promise<{ end: number; reasons: string[] }> {
  const reasons: string[] = [];
  let end = (await lastNewlineBefore(fh, size)) + 1;
  if (end < size) reasons.push(`${size - end} bytes after the last newline (torn write)`);
  for (let bad = 0; end > 0; bad++) {
    const start = (await lastNewlineBefore(fh, end - 1)) + 1;
    const problem = lineProblem(await readAt(fh, start, end - start), sha256hex);
    if (problem === null) break;
    if (bad === MAX_BAD_TAIL_LINES) {
      throw new Error(`audit.log: more than ${MAX_BAD_TAIL_LINES} bad lines at the end; refusing to cut, run verification`);
    }
    reasons.push(`last line at byte ${start} is bad: ${problem}`);
    end = start;
  }
  return { end, reasons };
}

interface Tail {
  seq: number;
  wallet: string;
}

/** Digits of a non-negative integer at `from`, ending at a comma; NaN otherwise. */
function digitsAt(data: Buffer, from: number, end: number): number {
  let value = 0;
  let i = from;
  for (; i < end && data[i] >= 0x30 && data[i] <= 0x39 && i - from < 16; i++) value = value * 10 + data[i] - 0x30;
  return i > from && data[i] === 0x2c ? value : Number.NaN;
}

/**
 * Quick parse: only seq and wallet, found from the end of the line, without parsing
 * the record. A wallet with escapes (never the case for addresses) falls back to JSON.parse.
 */
function quickParse(data: Buffer, start: number, end: number): Tail | null {
  if (end - start < 66 || data[start + 64] !== 0x20) return null;
  const at = data.lastIndexOf(SEQ_KEY, end - SEQ_KEY.length);
  const w = data.lastIndexOf(WALLET_KEY, end - WALLET_KEY.length);
  if (at < start + 65 || w < at) return null;
  const seq = digitsAt(data, at + SEQ_KEY.length, end);
  const close = data.indexOf(0x22, w + WALLET_KEY.length);
  if (Number.isNaN(seq) || close === -1 || close >= end) return null;
  if (!data.subarray(w + WALLET_KEY.length, close).includes(0x5c)) {
    return { seq, wallet: data.toString('utf8', w + WALLET_KEY.length, close) };
  }
  try {
    return { seq, wallet: JSON.parse(data.toString('utf8', w + WALLET_KEY.length - 1, end).replace(/,"wallet_prev_hash".*$/, '')) as string };
  } catch {
    return null;
  }
}

class Indexer {
  readonly offsets = new LineOffsets();
  readonly wallets = new Map<string, WalletChain>();
  head: AuditHead = { seq: 0, hash: ZERO_HASH };
  suspect = 0;

  line(data: Buffer, start: number, end: number, position: number): void {
    const lineNo = this.offsets.count;
    this.offsets.push(position);
    const tail = quickParse(data, start, end);
    if (tail === null || tail.seq !== lineNo + 1) this.suspect++;
    if (tail === null) return;
    const hash = data.toString('latin1', start, start + 64);
    this.head = { seq: tail.seq, hash };
    const chain = this.wallets.get(tail.wallet);
    if (chain) {
      chain.hash = hash;
      chain.lines.push(lineNo);
    } else {
      this.wallets.set(tail.wallet, { hash, lines: [lineNo] });
    }
  }
}

/** Reads [0, end) in large chunks and indexes every complete line. */
async function indexLines(fh: FileHandle, end: number, indexer: Indexer): Promise<void> {
  let buffer = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(end, 1)));
  let base = 0; // file position of buffer[0]
  let carry = 0;
  while (base + carry < end) {
    if (carry === buffer.length) buffer = Buffer.concat([buffer, Buffer.allocUnsafe(buffer.length)]);
    const want = Math.min(buffer.length - carry, end - base - carry);
    const { bytesRead } = await fh.read(buffer, carry, want, base + carry);
    if (bytesRead === 0) throw new Error('audit.log shrank while it was being opened');
    const filled = carry + bytesRead;
    let start = 0;
    for (let nl = buffer.indexOf(NEWLINE, 0); nl !== -1 && nl < filled; nl = buffer.indexOf(NEWLINE, start)) {
      indexer.line(buffer, start, nl, base + start);
      start = nl + 1;
    }
    carry = filled - start;
    buffer.copyWithin(0, start, filled);
    base += start;
  }
}

/** Scans the open log; does not modify it (the caller cuts to goodEnd). */
export async function scanLog(fh: FileHandle, sha256hex: Sha256Hex): Promise<ScanResult> {
  const began = performance.now();
  const { size } = await fh.stat();
  const { end, reasons } = await findGoodEnd(fh, size, sha256hex);
  const indexer = new Indexer();
  await indexLines(fh, end, indexer);
  const report: OpenReport = {
    records: indexer.offsets.count,
    truncatedBytes: size - end,
    reason: reasons.length > 0 ? reasons.join('; ') : null,
    suspectLines: indexer.suspect,
    scanMs: Math.round((performance.now() - began) * 10) / 10,
  };
  return { offsets: indexer.offsets, wallets: indexer.wallets, head: indexer.head, goodEnd: end, report };
}
