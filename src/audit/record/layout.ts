// The audit record's layout, stated once: its fields in RFC 8785 order, their types and when each is present
// (ARCHITECTURE.md "Audit record"). The writer, the parser and the byte scanners derive from it; golden lines
// hold them to it (test/unit/audit/record/record-layout.test.ts).
import type { AuditRecordBody } from './record.js';

/** `hash`: 64 lower-case hex; `strings`: an array of strings; `flat`: an object the caller sent; `payment`: an AuditPayment. */
export type FieldType = 'string' | 'number' | 'hash' | 'strings' | 'flat' | 'payment' | 'format';

/** `always`; `facts`: on a record that names its facts (format 2); `paid`: on a paid verdict's record. */
export type FieldPresence = 'always' | 'facts' | 'paid';

export interface RecordField {
  name: keyof AuditRecordBody;
  type: FieldType;
  presence: FieldPresence;
  /** `"<name>":`, as the canonical text writes the key. */
  key: string;
}

const field = (name: keyof AuditRecordBody, type: FieldType, presence: FieldPresence = 'always'): RecordField =>
  Object.freeze({ name, type, presence, key: `"${name}":` });

/** Every field, in RFC 8785 key order (UTF-16 code units, section 3.2.3): the order of the canonical bytes. */
export const RECORD_FIELDS: readonly RecordField[] = Object.freeze([
  field('channel', 'string'),
  field('decision', 'string'),
  field('facts_hash', 'hash', 'facts'),
  field('format', 'format', 'facts'),
  field('payment', 'payment', 'paid'),
  field('prev_hash', 'hash'),
  field('price_source', 'string'),
  field('price_usd', 'number'),
  field('reasons', 'strings'),
  field('request', 'flat'),
  field('risk_score', 'number'),
  field('seq', 'number'),
  field('tier', 'number'),
  field('ts', 'number'),
  field('wallet', 'string'),
  field('wallet_prev_hash', 'hash'),
]);

/** The `format` a record that names its facts carries. */
export const RECORD_FORMAT_WITH_FACTS = 2;

/** The fields every record has. */
export const ALWAYS_FIELDS: readonly RecordField[] = RECORD_FIELDS.filter((f) => f.presence === 'always');

/** `,"<name>":`: a key as it follows another member; a string value's opening quote is the caller's. */
export function memberKey(name: keyof AuditRecordBody): string {
  const found = RECORD_FIELDS.find((f) => f.name === name);
  if (found === undefined) throw new Error(`the audit record has no field ${name}`);
  return `,${found.key}`;
}

/** The fields after `name`, in order: what a scanner reading from the end passes over. */
export function fieldsAfter(name: keyof AuditRecordBody): readonly RecordField[] {
  return RECORD_FIELDS.slice(RECORD_FIELDS.findIndex((f) => f.name === name) + 1);
}
