// Open-time reads of audit.log: finds the torn tail, and reads seq and wallet off lines without parsing them.
import type { FileHandle } from 'node:fs/promises';
import { lineHashMatches, parseLine } from '../record/record.js';
import { lastLineBefore, lastNewlineBefore } from './file-lines.js';
import type { Sha256Hex } from '../record/sha256.js';

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
  /** Wall time of open: the tail check plus bringing the index up to date (no log read after a clean close). */
  scanMs: number;
  /** Acknowledged records found lost whose loss an operator accepted (AUDIT_ACCEPT_LOSS); each seq got a loss marker. */
  acceptedLoss?: { first_seq: number; last_seq: number };
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
export async function findGoodEnd(fh: FileHandle, size: number, sha256hex: Sha256Hex): Promise<{ end: number; reasons: string[]; lastGoodSeq: number }> {
  const reasons: string[] = [];
  let end = (await lastNewlineBefore(fh, size)) + 1;
  if (end < size) reasons.push(`${size - end} bytes after the last newline (torn write)`);
  for (let bad = 0; end > 0; bad++) {
    const { start, bytes: line } = (await lastLineBefore(fh, end))!;
    const problem = lineProblem(line, sha256hex);
    if (problem === null) return { end, reasons, lastGoodSeq: parseLine(line).seq };
    if (bad === MAX_BAD_TAIL_LINES) {
      throw new Error(`audit.log: more than ${MAX_BAD_TAIL_LINES} bad lines at the end; refusing to cut, run verification`);
    }
    reasons.push(`last line at byte ${start} is bad: ${problem}`);
    end = start;
  }
  return { end, reasons, lastGoodSeq: 0 };
}

/** What a quick parse reads off a line. */
export interface Tail {
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
export function quickParse(data: Buffer, start: number, end: number): Tail | null {
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

