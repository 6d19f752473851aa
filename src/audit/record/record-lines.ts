// Reading stored audit lines back: the canonical bytes and whether they hash to the line's hash, the parser that
// checks a line's fields against its format's layout (layout.ts), and the facts hash a line names (ARCHITECTURE.md
// "Audit record").
import { isSha256Hex, type Sha256Hex } from './sha256.js';
import { formatFields, memberKey, RECORD_FIELDS, type FieldType } from './layout.js';
import type { AuditRecordBody, StoredRecord } from './record.js';

/** A stored line is `<64 hex hash> <canonical JSON>`; the JSON starts here. */
export const LINE_BODY_OFFSET = 65;
const NEWLINE = 0x0a;

export class AuditRecordError extends Error {
  override name = 'AuditRecordError';
}

/** The canonical JSON bytes of a line (with or without its trailing newline). */
export function canonicalBytes(line: Uint8Array): Uint8Array {
  const end = line.length > 0 && line[line.length - 1] === NEWLINE ? line.length - 1 : line.length;
  return line.subarray(LINE_BODY_OFFSET, end);
}

/** True when the line's hash prefix equals SHA-256 of its canonical bytes. */
export function lineHashMatches(line: Uint8Array, sha256hex: Sha256Hex): boolean {
  if (line.length <= LINE_BODY_OFFSET) return false;
  const prefix = Buffer.from(line.buffer, line.byteOffset, 64).toString('latin1');
  return sha256hex(canonicalBytes(line)) === prefix;
}

/** Whether a parsed value has a field's type; `format` picks the fields in checkBody. */
const HOLDS: Record<Exclude<FieldType, 'payment' | 'format'>, (value: unknown) => boolean> = {
  string: (value) => typeof value === 'string',
  hash: (value) => typeof value === 'string',
  number: (value) => typeof value === 'number',
  strings: (value) => Array.isArray(value),
  flat: (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
};

/** Each format's fields as the parser checks them: its `format` member says which (none: format 1). */
const FORMAT_FIELDS = new Map<unknown, ReturnType<typeof formatFields>>([[undefined, formatFields(1)], [2, formatFields(2)], [3, formatFields(3)]]);

function checkBody(value: unknown): AuditRecordBody {
  if (typeof value !== 'object' || value === null) throw new AuditRecordError('audit line body is not an object');
  const body = value as Record<string, unknown>;
  const fields = FORMAT_FIELDS.get(body.format);
  if (fields === undefined) throw new AuditRecordError(`audit line format ${String(body.format)} is not one this service reads (1, 2, 3)`);
  for (const { name, type } of fields) {
    if (type === 'format') continue;
    if (!HOLDS[type as keyof typeof HOLDS](body[name])) throw new AuditRecordError(`audit line field ${name} is not a ${type}`);
  }
  // The documents a record names must be named by hashes (the links are the chain walk's to judge).
  for (const named of [body.facts_hash, body.outcome_hash]) {
    if (named !== undefined && !isSha256Hex(named as string)) throw new AuditRecordError('audit line facts_hash or outcome_hash malformed');
  }
  if (body.payment !== undefined) checkPayment(body.payment);
  const expected = fields.length + (body.payment === undefined ? 0 : PAID_FIELDS);
  if (Object.keys(body).length !== expected) throw new AuditRecordError('audit line has unexpected fields');
  return body as unknown as AuditRecordBody;
}

const PAID_FIELDS = RECORD_FIELDS.filter((f) => f.presence === 'paid').length;

const PAYMENT_FIELDS = ['payer', 'nonce', 'transaction', 'network', 'asset', 'amount', 'pay_to'];

function checkPayment(payment: unknown): void {
  const ok = typeof payment === 'object' && payment !== null && !Array.isArray(payment) &&
    Object.keys(payment).length === PAYMENT_FIELDS.length &&
    PAYMENT_FIELDS.every((key) => typeof (payment as Record<string, unknown>)[key] === 'string');
  if (!ok) throw new AuditRecordError('audit line payment malformed');
}

/**
 * Parses a stored line (trailing newline optional) into a record. Checks the shape
 * only; whether the hash matches the bytes is lineHashMatches(), and whether the
 * links hold is the verifier's job.
 */
export function parseLine(line: Uint8Array | string): StoredRecord {
  let text = typeof line === 'string' ? line : Buffer.from(line.buffer, line.byteOffset, line.byteLength).toString('utf8');
  if (text.endsWith('\n')) text = text.slice(0, -1);
  const hash = text.slice(0, 64);
  if (!isSha256Hex(hash) || text[64] !== ' ') throw new AuditRecordError('audit line does not start with a hash and a space');
  let value: unknown;
  try {
    value = JSON.parse(text.slice(LINE_BODY_OFFSET));
  } catch (error) {
    throw new AuditRecordError(`audit line body is not JSON: ${(error as Error).message}`);
  }
  return { ...checkBody(value), hash };
}

const FACTS_HASH = new RegExp(`${memberKey('facts_hash')}"([0-9a-f]{64})"`);

/**
 * The `facts_hash` a stored line names (format 2), or null. Only `channel` and `decision`, short strings, come before
 * it (layout.ts), so the first match is the record's own.
 */
export function factsHashOf(line: Uint8Array): string | null {
  const text = Buffer.from(line.buffer, line.byteOffset, Math.min(line.byteLength, 400)).toString('latin1');
  return FACTS_HASH.exec(text)?.[1] ?? null;
}
