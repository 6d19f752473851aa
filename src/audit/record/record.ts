// Pure audit-record sealing: RFC 8785 canonical bytes, hash, log line. Reading stored lines back is record-lines.ts.
import canonicalize from 'canonicalize';
import type { AuditEntry, AuditRecord, StoredFacts } from './audit-log.js';
import { isSha256Hex, type Sha256Hex } from './sha256.js';
import { keyOrder, SURROGATE } from './key-order.js';
import { RECORD_FORMAT, type RecordFormat } from './layout.js';
import { AuditRecordError } from './record-lines.js';

export { AuditRecordError, canonicalBytes, factsHashOf, LINE_BODY_OFFSET, lineHashMatches, parseLine } from './record-lines.js';
import { generateRecordWriters, type ValueWriters } from './record-writer.js';
import { outcomeDocument } from './outcome.js';


/** The outcome a record of format 1 or 2 holds itself, and a format 3 record names by `outcome_hash` (outcome.ts). */
type OutcomeFields = 'reasons' | 'price_usd' | 'price_source';

/** The record as stored, without its hash: exactly the fields ARCHITECTURE.md "Audit record" names for its format. */
export type AuditRecordBody = Omit<AuditRecord, 'hash' | 'chain' | OutcomeFields> & Partial<Pick<AuditRecord, OutcomeFields>>;

/** A stored line parsed: its fields and hash, a format 3 record's outcome not yet resolved (outcome-reads.ts). */
export type StoredRecord = AuditRecordBody & Pick<AuditRecord, 'hash' | 'chain'>;

export interface SealedRecord {
  /** As listed: a format 3 record with its outcome resolved beside it. */
  record: AuditRecord;
  /** `<hash> <canonical JSON>\n` as UTF-8, ready to append to the file. */
  line: Buffer;
  /** The facts the record names by `facts_hash`, for the store to keep beside it. */
  facts?: StoredFacts;
  /** The outcome document the record names by `outcome_hash`, kept beside its facts (format 3). */
  outcome?: StoredFacts;
}

/** Records store wallets lower-case so a wallet chain never splits on checksum case. */
export function normalizeWallet(wallet: string): string {
  return wallet.toLowerCase();
}

/** Throws when a field would be dropped or mangled by canonicalization. */
function checkEntry(entry: AuditEntry): void {
  // Field by field, without a list and a closure per record.
  if (typeof entry.wallet !== 'string' || typeof entry.channel !== 'string' || typeof entry.decision !== 'string' || typeof entry.price_source !== 'string') {
    throw new AuditRecordError('audit entry: a string field is missing');
  }
  if (typeof entry.risk_score !== 'number' || typeof entry.tier !== 'number' || typeof entry.price_usd !== 'number') {
    throw new AuditRecordError('audit entry: a number field is missing');
  }
  if (!Array.isArray(entry.reasons)) throw new AuditRecordError('audit entry: reasons must be an array');
  if (typeof entry.request !== 'object' || entry.request === null || Array.isArray(entry.request)) {
    throw new AuditRecordError('audit entry: request must be an object');
  }
}

function checkLinks(seq: number, ts: number, prevHash: string, walletPrevHash: string): void {
  checkPlace(seq, ts);
  checkLink(prevHash);
  checkLink(walletPrevHash);
}

function checkPlace(seq: number, ts: number): void {
  if (!Number.isSafeInteger(seq) || seq < 1) throw new AuditRecordError(`audit seq must be a positive integer, got ${seq}`);
  if (!Number.isSafeInteger(ts)) throw new AuditRecordError(`audit ts must be integer milliseconds, got ${ts}`);
}

/** Throws unless `hash` can link a record: 64 lower-case hex. */
export function checkLink(hash: string): void {
  if (!isSha256Hex(hash)) throw new AuditRecordError('audit links must be 64 lower-case hex');
}

/**
 * Assembles the hashed fields; key order is irrelevant because canonicalization sorts. A record with facts is format 3:
 * it names its outcome (`outcome`, the entry's reasons and price) by hash, and its request leaves out a `wallet` that
 * is the record's own, byte for byte (ARCHITECTURE.md "Audit record"); one without facts is format 1.
 */
export function recordBody(
  entry: AuditEntry, seq: number, ts: number, prevHash: string, walletPrevHash: string, outcome?: StoredFacts,
): AuditRecordBody {
  const wallet = normalizeWallet(entry.wallet);
  if (entry.facts && outcome) {
    const body: AuditRecordBody = {
      seq, ts, wallet, channel: entry.channel, request: requestBesidesWallet(entry.request, wallet),
      decision: entry.decision, risk_score: entry.risk_score, tier: entry.tier,
      facts_hash: entry.facts.hash, format: RECORD_FORMAT, outcome_hash: outcome.hash,
      prev_hash: prevHash, wallet_prev_hash: walletPrevHash,
    };
    if (entry.payment) body.payment = { ...entry.payment };
    return body;
  }
  const body: AuditRecordBody = {
    seq, ts, wallet, channel: entry.channel, request: entry.request,
    decision: entry.decision, risk_score: entry.risk_score, reasons: entry.reasons, tier: entry.tier,
    price_usd: entry.price_usd, price_source: entry.price_source,
    prev_hash: prevHash, wallet_prev_hash: walletPrevHash,
  };
  if (entry.payment) body.payment = { ...entry.payment };
  return body;
}

/** The request without a `wallet` member equal to the record's wallet: the record's `wallet` gives it back (format 3). */
function requestBesidesWallet(request: Record<string, unknown>, wallet: string): Record<string, unknown> {
  if (request.wallet !== wallet) return request;
  const { wallet: _same, ...rest } = request;
  return rest;
}

/** The request a format 3 record was judged on: its stored request, with the record's wallet where it left it out. */
export function requestOf(record: Pick<AuditRecordBody, 'format' | 'request' | 'wallet'>): Record<string, unknown> {
  return record.format === 3 && record.request.wallet === undefined ? { ...record.request, wallet: record.wallet } : record.request;
}

/**
 * RFC 8785 (JCS) text: keys sorted by UTF-16 code units (section 3.2.3), numbers in
 * ECMAScript Number-to-String form (section 3.2.2.3: 1e+21, 0.1, -0 as 0), no
 * whitespace. Throws on NaN, Infinity and lone surrogates, which JCS cannot express.
 */
export function canonicalJson(body: AuditRecordBody): string {
  return fastCanonicalJson(body) ?? libraryCanonicalJson(body);
}

/** The general RFC 8785 path, for records the fast path hands back. */
function libraryCanonicalJson(body: AuditRecordBody): string {
  const text = canonicalize(body);
  if (text === undefined) throw new AuditRecordError('audit record has no JSON form');
  return text;
}

// Strings free of these characters serialize as themselves between quotes (RFC 8785 section
// 3.2.2.2 escapes only quote, backslash and controls). Any surrogate, paired or lone, sends the
// record to the library, which refuses lone ones as JCS requires.
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** A string as JSON.stringify writes it (RFC 8785's form too), quoted as it is when nothing in it needs an escape. */
export function jsonString(value: string): string {
  return NEEDS_ESCAPE.test(value) ? JSON.stringify(value) : `"${value}"`;
}

/** A JSON string literal as RFC 8785 writes it, or null to leave the record to the library. */
function quote(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  if (!NEEDS_ESCAPE.test(value)) return `"${value}"`;
  return SURROGATE.test(value) ? null : JSON.stringify(value);
}

/** ECMAScript Number-to-String, the form RFC 8785 section 3.2.2.3 requires (-0 writes as 0). */
function numberText(value: unknown): string | null {
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : null;
}

function scalarText(value: unknown): string | null {
  if (typeof value === 'boolean' || value === null) return String(value);
  return typeof value === 'string' ? quote(value) : numberText(value);
}

/** A flat object's canonical text, keys in RFC 8785 order (section 3.2.3), or null for nested values (left to the library). */
function flatObjectText(object: Record<string, unknown>): string | null {
  const { keys, texts, surrogate } = keyOrder(object);
  if (surrogate) return null;
  let text = '';
  for (let i = 0; i < keys.length; i++) {
    const value = scalarText(object[keys[i]]);
    if (value === null) return null;
    text += (i === 0 ? '' : ',') + texts[i] + value;
  }
  return `{${text}}`;
}

function stringArrayText(values: unknown): string | null {
  if (!Array.isArray(values)) return null;
  let text = '';
  for (const value of values) {
    const quoted = quote(value);
    if (quoted === null) return null;
    text += text === '' ? quoted : `,${quoted}`;
  }
  return `[${text}]`;
}

/** The value writers the generated record writers call, one per field type (record-writer.ts). */
const WRITE: ValueWriters = {
  string: quote,
  hash: quote,
  number: numberText,
  strings: stringArrayText,
  flat: (value) => (typeof value === 'object' && value !== null && !Array.isArray(value) ? flatObjectText(value as Record<string, unknown>) : null),
  format: (value) => (value === 2 || value === 3 ? String(value) : null),
};

const WRITERS = generateRecordWriters(WRITE);

/**
 * The same bytes as `canonicalize` for the record shape every evaluation writes
 * (a flat request, string reasons), several times faster: a writer generated from layout.ts
 * writes the members in their RFC 8785 key order. Anything else (a payment, nested requests,
 * surrogates, non-finite numbers) returns null and goes through the library; a property test
 * holds the two equal.
 */
export function fastCanonicalJson(body: AuditRecordBody): string | null {
  // Paid records (a nested payment) are rare beside a settlement's latency: the library writes them.
  if (body.payment !== undefined) return null;
  const format = formatOf(body);
  return format === null ? null : WRITERS[format](body);
}

/**
 * The format a body's members make, or null for a mix no format has: each generated writer writes only its format's
 * fields, so a member outside them would be dropped in silence; such a body goes to the library.
 */
function formatOf(body: AuditRecordBody): RecordFormat | null {
  const inline = body.reasons !== undefined || body.price_usd !== undefined || body.price_source !== undefined;
  if (body.format === undefined) return body.facts_hash === undefined && body.outcome_hash === undefined ? 1 : null;
  if (body.format === 2) return body.outcome_hash === undefined ? 2 : null;
  return body.format === 3 && !inline ? 3 : null;
}

/**
 * Seals an entry into a record and its line. The hash covers exactly the UTF-8
 * bytes of the canonical JSON (ARCHITECTURE.md "Audit record"). The record returned is
 * the body that was serialised: JCS of it is those bytes, so a client re-hashing
 * the JSON it receives gets the same hash.
 */
export function sealRecord(
  entry: AuditEntry, seq: number, ts: number, prevHash: string, walletPrevHash: string, sha256hex: Sha256Hex,
): SealedRecord {
  checkEntry(entry);
  checkLinks(seq, ts, prevHash, walletPrevHash);
  return sealChecked(entry, seq, ts, prevHash, walletPrevHash, sha256hex);
}

/**
 * sealRecord for links already checked with checkLink: a group seals each record on the hash of the one before, which
 * it made itself, so only the heads it read (the log's, a wallet's) need the check (seal-batch.ts).
 */
export function sealOnCheckedLinks(
  entry: AuditEntry, seq: number, ts: number, prevHash: string, walletPrevHash: string, sha256hex: Sha256Hex,
): SealedRecord {
  checkEntry(entry);
  checkPlace(seq, ts);
  return sealChecked(entry, seq, ts, prevHash, walletPrevHash, sha256hex);
}

function sealChecked(
  entry: AuditEntry, seq: number, ts: number, prevHash: string, walletPrevHash: string, sha256hex: Sha256Hex,
): SealedRecord {
  // The outcome a block's verdicts share is one document, made and hashed once (outcome.ts).
  const outcome = entry.facts ? outcomeDocument(entry) : undefined;
  const body = recordBody(entry, seq, ts, prevHash, walletPrevHash, outcome);
  const fast = fastCanonicalJson(body);
  // The fast path already said no when it returned null: go straight to the library.
  const text = fast ?? libraryCanonicalJson(body);
  const { line, hash } = sealedLine(text, sha256hex);
  // Detached from the caller's objects: a flat request and string reasons copy cheaply;
  // anything deeper is parsed back from the bytes.
  const stored = fast !== null ? detachedRecord(body, entry, hash) : { ...(JSON.parse(text) as AuditRecordBody), hash };
  if (!outcome) return { record: stored as AuditRecord, line };
  // As a listing gives it: the outcome the record names, resolved beside it.
  const record = fast !== null ? stored as AuditRecord : { ...stored, reasons: entry.reasons.slice(), price_usd: entry.price_usd, price_source: entry.price_source };
  return { record, line, facts: entry.facts, outcome };
}

/** Where a line's text begins: after its hash's 64 hex digits and a space, which a line is first written with in their place. */
const TEXT_AT = 65;
const HASH_PLACE = ' '.repeat(TEXT_AT);

/**
 * The record's line, `<hash> <text>\n`, with the text turned into UTF-8 once, in the line itself, and hashed there;
 * the hash is then written over the spaces held for it. Hashing the text and then writing the line turned it into
 * UTF-8 twice: about 1 us more a record (4.2-5.0 against 2.7-4.3 us for a 600-byte record, 8 rounds of 200,000).
 */
function sealedLine(text: string, sha256hex: Sha256Hex): { line: Buffer; hash: string } {
  const line = Buffer.from(`${HASH_PLACE}${text}\n`, 'utf8');
  const hash = sha256hex(line.subarray(TEXT_AT, line.length - 1));
  line.write(hash, 0, TEXT_AT - 1, 'latin1');
  return { line, hash };
}

/**
 * One literal with every field (not a spread), so records of one format share one fast object shape; a format 3
 * record carries its outcome resolved, as a listing gives it.
 */
function detachedRecord(body: AuditRecordBody, entry: AuditEntry, hash: string): AuditRecord {
  if (body.format === 3) {
    return {
      // A request without its wallet is already a copy of the caller's, made for this record (requestBesidesWallet).
      seq: body.seq, ts: body.ts, wallet: body.wallet, channel: body.channel, request: body.request === entry.request ? { ...body.request } : body.request,
      decision: body.decision, risk_score: body.risk_score, tier: body.tier, facts_hash: body.facts_hash, format: 3,
      outcome_hash: body.outcome_hash, prev_hash: body.prev_hash, wallet_prev_hash: body.wallet_prev_hash, hash,
      reasons: entry.reasons.slice(), price_usd: entry.price_usd, price_source: entry.price_source,
    };
  }
  const reasons = body.reasons!;
  if (body.facts_hash !== undefined) {
    return {
      seq: body.seq, ts: body.ts, wallet: body.wallet, channel: body.channel, request: { ...body.request },
      decision: body.decision, risk_score: body.risk_score, reasons: reasons.slice(), tier: body.tier,
      price_usd: body.price_usd!, price_source: body.price_source!, facts_hash: body.facts_hash, format: 2,
      prev_hash: body.prev_hash, wallet_prev_hash: body.wallet_prev_hash, hash,
    };
  }
  return {
    seq: body.seq, ts: body.ts, wallet: body.wallet, channel: body.channel, request: { ...body.request },
    decision: body.decision, risk_score: body.risk_score, reasons: reasons.slice(), tier: body.tier,
    price_usd: body.price_usd!, price_source: body.price_source!, prev_hash: body.prev_hash,
    wallet_prev_hash: body.wallet_prev_hash, hash,
  };
}
