// Scans one chunk of stored audit lines: re-hashes each line's canonical bytes as stored and reads its seq and link.
//
// A line is `<64 hex hash> <RFC 8785 canonical JSON>`. Canonical keys are sorted
// (RFC 8785 section 3.2.3), so the body starts `{"channel":…,"decision":…,"prev_hash":"…"`
// and ends `…,"seq":N,"tier":…,"ts":…,"wallet":"…","wallet_prev_hash":"…"}`. Strings escape
// every `"`, so `,"prev_hash":"` first and `,"seq":` last can only be the top-level keys.
// Nothing is parsed or re-serialized: the fields are located by byte, the hash covers
// the bytes exactly as stored.
import type { Sha256Digest } from '../record/sha256.js';
import { fieldsAfter, memberKey, RECORD_FIELDS } from '../record/layout.js';

/** The line has a hash, a space, a seq and the link field. */
export const SHAPE_OK = 1;
/** SHA-256 of the canonical bytes equals the stored hash. */
export const HASH_OK = 2;
/** The link field names the previous line of this chunk (its stored or its recomputed hash). */
export const LINK_OK = 4;

/** Which link a chain follows: the global chain or one wallet's chain. */
export type LinkField = 'prev_hash' | 'wallet_prev_hash';

export interface ChunkScan {
  count: number;
  /** Each line's claimed seq; -1 when it cannot be read. */
  seqs: Float64Array;
  /** SHAPE_OK | HASH_OK | LINK_OK per line; line 0's LINK_OK is left to the caller. */
  flags: Uint8Array;
  /** Byte offset of each line in the chunk. */
  starts: Uint32Array;
  /** Line 0's link field (hex), for the check against the previous chunk; null when unreadable. */
  firstLink: string | null;
  /** The last line's stored hash and recomputed hash, for the next chunk's first link. */
  lastStored: string | null;
  lastComputed: string | null;
}

const NEWLINE = 0x0a;
const QUOTE = 0x22;
const HASH_END = 64;
const BODY_OFFSET = 65;
const PREV_KEY = Buffer.from(`${memberKey('prev_hash')}"`);
const WALLET_PREV_KEY = Buffer.from(`${memberKey('wallet_prev_hash')}"`);

/**
 * The walk below reads fields by byte where layout.ts puts them: `channel` and `decision` first, the facts fields
 * (if any) then `prev_hash`, and from the end `wallet_prev_hash`, `wallet`, `ts`, `tier`, `seq`. A layout that moves
 * any of them stops the verifier here, naming what to re-check, rather than letting it misread every line.
 */
function checkLayout(): void {
  const names = RECORD_FIELDS.map((f) => f.name).join(',');
  const expected = 'channel,decision,facts_hash,format,outcome_hash,payment,prev_hash';
  const tail = fieldsAfter('seq').map((f) => f.name).join(',');
  if (!names.startsWith(expected) || tail !== 'tier,ts,wallet,wallet_prev_hash') {
    throw new Error(`the audit record layout (src/audit/record/layout.ts) no longer has the fields chunk-scan.ts reads by byte where it reads them: ${names}; re-check prevHashAt, walletPrevHashAt and seqOf`);
  }
}
checkLayout();
/** `<64 hex>"}` closes every record; `,"wallet_prev_hash":"` comes before it. */
const TAIL = HASH_END + 2 + WALLET_PREV_KEY.length;
/** `,"wallet":"0x<40 hex>"`: an address wallet, the case of every record the service writes. */
const ADDRESS_WALLET = 11 + 42 + 1;

/** HEX_PAIR[b]: the two lower-case hex characters of byte b, as the little-endian uint16 they make in memory. */
const HEX_PAIR = new Uint16Array(256);
for (let b = 0; b < 256; b++) HEX_PAIR[b] = '0123456789abcdef'.charCodeAt(b >> 4) | ('0123456789abcdef'.charCodeAt(b & 15) << 8);

/** The 64 characters at `at` are the lower-case hex of `digest`; four at a time. */
function hexEqualsDigest(view: DataView, at: number, digest: Uint8Array): boolean {
  for (let i = 0; i < 32; i += 2) {
    if (view.getUint32(at + 2 * i, true) !== ((HEX_PAIR[digest[i]] | (HEX_PAIR[digest[i + 1]] << 16)) >>> 0)) return false;
  }
  return true;
}

function sameHex(view: DataView, a: number, b: number): boolean {
  for (let i = 0; i < HASH_END; i += 4) if (view.getUint32(a + i) !== view.getUint32(b + i)) return false;
  return true;
}

/** Offset of 64 characters closed by a quote at `at`, or -1. */
function hexField(bytes: Uint8Array, at: number, end: number): number {
  return at >= 0 && at + HASH_END < end && bytes[at + HASH_END] === QUOTE ? at : -1;
}

/** Index of the first quote at or after `from` when it closes the string (channel and decision are short). */
function closingQuote(bytes: Uint8Array, from: number, end: number): number {
  let i = from;
  while (i < end && bytes[i] !== QUOTE) i++;
  return i < end && bytes[i - 1] !== 0x5c ? i : -1;
}

/**
 * Start of the prev_hash value. Canonically the body opens
 * `{"channel":"<c>","decision":"<d>","prev_hash":"` (format 2 puts `"facts_hash":"<64 hex>","format":2,`
 * before `"prev_hash"`, format 3 `"facts_hash":"<64 hex>","format":3,"outcome_hash":"<64 hex>",`): a few bytes of each key
 * confirm the walk; anything else is found by search. A record whose bytes hash
 * right but whose keys are not canonical at worst has its link misread, which
 * fails the link: nothing unverified is ever accepted.
 */
function prevHashAt(bytes: Uint8Array, buf: Buffer, body: number, end: number): number {
  if (bytes[body + 2] === 0x63 && bytes[body + 10] === 0x3a) {
    const q1 = closingQuote(bytes, body + 12, end);
    if (q1 !== -1 && bytes[q1 + 3] === 0x64 && bytes[q1 + 12] === 0x3a) {
      const q2 = closingQuote(bytes, q1 + 14, end);
      if (q2 !== -1 && bytes[q2 + 3] === 0x70 && bytes[q2 + 13] === 0x3a) return hexField(bytes, q2 + 15, end);
      // Format 2: `,"facts_hash":"<64 hex>","format":2,"prev_hash":"` follows the decision.
      if (q2 !== -1 && bytes[q2 + 3] === 0x66 && bytes[q2 + 14] === 0x3a && bytes[q2 + 94] === 0x70 && bytes[q2 + 104] === 0x3a) {
        return hexField(bytes, q2 + 106, end);
      }
      // Format 3: `,"facts_hash":"<64 hex>","format":3,"outcome_hash":"<64 hex>","prev_hash":"` follows the decision.
      if (q2 !== -1 && bytes[q2 + 3] === 0x66 && bytes[q2 + 94] === 0x6f && bytes[q2 + 107] === 0x3a && bytes[q2 + 176] === 0x70 && bytes[q2 + 186] === 0x3a) {
        return hexField(bytes, q2 + 188, end);
      }
    }
  }
  const key = buf.indexOf(PREV_KEY, body);
  return key !== -1 && key < end ? hexField(bytes, key + PREV_KEY.length, end) : -1;
}

/** Start of the wallet_prev_hash value: the record's last field, else a search. */
function walletPrevHashAt(bytes: Uint8Array, buf: Buffer, body: number, end: number): number {
  const key = end - TAIL;
  if (key >= body && bytes[end - 1] === 0x7d && bytes[key] === 0x2c && bytes[key + 9] === 0x70 && bytes[key + 19] === 0x3a) {
    return hexField(bytes, key + WALLET_PREV_KEY.length, end);
  }
  const found = buf.lastIndexOf(WALLET_PREV_KEY, end - 1);
  return found >= body ? hexField(bytes, found + WALLET_PREV_KEY.length, end) : -1;
}

/**
 * The top-level seq: the last `,"seq":` of the line, then digits and a comma; -1
 * otherwise. Only `tier`, `ts`, `wallet` and `wallet_prev_hash` follow it; an
 * address wallet is skipped whole, and the search backward is for the key's `q`,
 * which no other key, digit or hex character has.
 */
function seqOf(bytes: Uint8Array, body: number, end: number): number {
  const wallet = end - TAIL - ADDRESS_WALLET;
  let i = wallet >= body && bytes[wallet] === 0x2c && bytes[wallet + 2] === 0x77 && bytes[wallet + 9] === 0x3a
    ? wallet : end - TAIL - 1;
  for (; i >= body + 4; i--) {
    if (bytes[i] !== 0x71) continue;
    if (bytes[i + 1] !== QUOTE || bytes[i + 2] !== 0x3a || bytes[i - 1] !== 0x65 || bytes[i - 2] !== 0x73 ||
      bytes[i - 3] !== QUOTE || bytes[i - 4] !== 0x2c) continue;
    let value = 0;
    let j = i + 3;
    for (; j < end && j - i < 19 && bytes[j] >= 0x30 && bytes[j] <= 0x39; j++) value = value * 10 + bytes[j] - 0x30;
    return j > i + 3 && bytes[j] === 0x2c ? value : -1;
  }
  return -1;
}

class Columns {
  seqs: Float64Array;
  flags: Uint8Array;
  starts: Uint32Array;
  count = 0;

  constructor(capacity: number) {
    this.seqs = new Float64Array(capacity);
    this.flags = new Uint8Array(capacity);
    this.starts = new Uint32Array(capacity);
  }

  push(start: number, seq: number, flags: number): void {
    if (this.count === this.seqs.length) this.grow();
    this.starts[this.count] = start;
    this.seqs[this.count] = seq;
    this.flags[this.count++] = flags;
  }

  private grow(): void {
    const size = this.seqs.length * 2;
    const seqs = new Float64Array(size);
    const flags = new Uint8Array(size);
    const starts = new Uint32Array(size);
    seqs.set(this.seqs);
    flags.set(this.flags);
    starts.set(this.starts);
    this.seqs = seqs;
    this.flags = flags;
    this.starts = starts;
  }
}

/**
 * Hashes and reads every line of `bytes` (lines end with a newline, the last one
 * may not). A line's link is good when it names the previous line's stored hash or
 * the hash its bytes really have: a damaged line then counts once, not twice.
 */
export function scanChunk(bytes: Uint8Array, field: LinkField, digest: Sha256Digest): ChunkScan {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const columns = new Columns(Math.max(16, Math.ceil(bytes.length / 256)));
  const linkAt = field === 'prev_hash' ? prevHashAt : walletPrevHashAt;
  let firstLink: string | null = null;
  let prevStart = -1;
  let prevDigest: Uint8Array | null = null;
  for (let start = 0; start < bytes.length;) {
    const newline = buf.indexOf(NEWLINE, start);
    const end = newline === -1 ? bytes.length : newline;
    const framed = end - start > BODY_OFFSET && bytes[start + HASH_END] === 0x20;
    const body = start + BODY_OFFSET;
    const computed = framed ? digest(bytes.subarray(body, end)) : null;
    const link = framed ? linkAt(bytes, buf, body, end) : -1;
    const seq = framed ? seqOf(bytes, body, end) : -1;
    let flags = link !== -1 && seq !== -1 ? SHAPE_OK : 0;
    if (computed !== null && hexEqualsDigest(view, start, computed)) flags |= HASH_OK;
    if (link !== -1 && columns.count > 0 &&
      ((prevStart !== -1 && sameHex(view, link, prevStart)) || (prevDigest !== null && hexEqualsDigest(view, link, prevDigest)))) {
      flags |= LINK_OK;
    }
    if (columns.count === 0 && link !== -1) firstLink = buf.toString('latin1', link, link + HASH_END);
    columns.push(start, seq, flags);
    prevStart = end - start >= HASH_END ? start : -1;
    prevDigest = computed;
    start = end + 1;
  }
  const last = columns.count - 1;
  return {
    count: columns.count,
    seqs: columns.seqs.slice(0, columns.count),
    flags: columns.flags.slice(0, columns.count),
    starts: columns.starts.slice(0, columns.count),
    firstLink,
    lastStored: prevStart !== -1 && last >= 0 ? buf.toString('latin1', prevStart, prevStart + HASH_END) : null,
    lastComputed: prevDigest ? Buffer.from(prevDigest.buffer, prevDigest.byteOffset, 32).toString('hex') : null,
  };
}
