// Chains and tampering for the verification tests: sealed lines plus the edits an attacker (or a crash) makes.
import { createHash } from 'node:crypto';
import { ZERO_HASH, type AuditHead } from '../../src/audit/record/audit-log.js';
import { ChainWalker, GENESIS, type ChainAnchor, type ChainEnd, type VerifyReport } from '../../src/audit/verify/chain-walk.js';
import { scanChunk, type LinkField } from '../../src/audit/verify/chunk-scan.js';
import { canonicalJson, parseLine, sealRecord, type AuditRecordBody } from '../../src/audit/record/record.js';
import { WALLET_A, WALLET_B, WALLET_C, sampleEntry } from './audit-fixtures.js';

export const nodeHex = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');
export const nodeDigest = (bytes: Uint8Array) => new Uint8Array(createHash('sha256').update(bytes).digest());

export interface Chain {
  /** Stored lines without newlines, oldest first: lines[i] holds seq i + 1. */
  lines: Buffer[];
  head: AuditHead;
}

/** `n` sealed records, wallets A, B, C in turn, exactly as the stores write them. */
export function buildChain(n: number, wallets = [WALLET_A, WALLET_B, WALLET_C]): Chain {
  const walletHeads = new Map<string, string>();
  const lines: Buffer[] = [];
  let head: AuditHead = { seq: 0, hash: ZERO_HASH };
  for (let i = 0; i < n; i++) {
    const entry = sampleEntry(wallets[i % wallets.length], i);
    const key = entry.wallet.toLowerCase();
    const { record, line } = sealRecord(entry, i + 1, 1_767_225_600_000 + i, head.hash, walletHeads.get(key) ?? ZERO_HASH, nodeHex);
    walletHeads.set(key, record.hash);
    head = { seq: record.seq, hash: record.hash };
    lines.push(line.subarray(0, line.length - 1));
  }
  return { lines, head };
}

export const fileText = (lines: Buffer[]) => Buffer.concat(lines.flatMap((line) => [line, Buffer.from('\n')]));

/** Index of seq in a fresh chain. */
const at = (seq: number) => seq - 1;

/** Flips one byte of the record's canonical JSON (or of its stored hash with `inHash`). */
export function flipByte(lines: Buffer[], seq: number, inHash = false): Buffer[] {
  const copy = lines.map((line) => Buffer.from(line));
  const line = copy[at(seq)];
  const offset = inHash ? 10 : line.indexOf('"decision":"') + 13;
  line[offset] = line[offset] === 0x61 ? 0x62 : 0x61;
  return copy;
}

export function deleteRecord(lines: Buffer[], seq: number): Buffer[] {
  return lines.filter((_, i) => i !== at(seq));
}

export function swapRecords(lines: Buffer[], a: number, b: number): Buffer[] {
  const copy = [...lines];
  [copy[at(a)], copy[at(b)]] = [copy[at(b)], copy[at(a)]];
  return copy;
}

export function truncateTail(lines: Buffer[], count: number): Buffer[] {
  return lines.slice(0, lines.length - count);
}

/** Changes the record's decision and seals it again with a correct hash; the next record still names the old one. */
export function editAndRehash(lines: Buffer[], seq: number): Buffer[] {
  const copy = [...lines];
  const { hash: _old, ...body } = parseLine(copy[at(seq)]);
  const edited: AuditRecordBody = { ...body, decision: body.decision === 'deny' ? 'allow' : 'deny' };
  const text = canonicalJson(edited);
  copy[at(seq)] = Buffer.from(`${nodeHex(text)} ${text}`);
  return copy;
}

/** Verifies in-process (no pool): the lines cut into chunks of `perChunk` lines. */
export function verifyLines(
  lines: Buffer[], options: { field?: LinkField; anchor?: ChainAnchor; head?: ChainEnd; perChunk?: number } = {},
): VerifyReport {
  const field = options.field ?? 'prev_hash';
  const walker = new ChainWalker(field, options.anchor ?? GENESIS, options.head);
  const perChunk = options.perChunk ?? lines.length;
  for (let first = 0; first < lines.length; first += perChunk) {
    const bytes = fileText(lines.slice(first, first + perChunk));
    walker.add({ ...scanChunk(bytes, field, nodeDigest), bytes });
  }
  return walker.finish();
}

export const storedHashOf = (line: Buffer) => line.toString('latin1', 0, 64);
