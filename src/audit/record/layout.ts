// The audit record's layout, stated once: its fields in RFC 8785 order, their types and in which formats each is
// present (ARCHITECTURE.md "Audit record"). The writer, the parser and the byte scanners derive from it; golden lines
// hold them to it (test/unit/audit/record/record-layout.test.ts).
import type { AuditRecordBody } from './record.js';

/** `hash`: 64 lower-case hex; `strings`: an array of strings; `flat`: an object the caller sent; `payment`: an AuditPayment. */
export type FieldType = 'string' | 'number' | 'hash' | 'strings' | 'flat' | 'payment' | 'format';

/**
 * `always`; `inline`: the outcome written out in the record (formats 1 and 2); `facts`: on a record that names its
 * facts (formats 2 and 3); `outcome`: the outcome named by hash (format 3); `paid`: on a paid verdict's record.
 */
export type FieldPresence = 'always' | 'inline' | 'facts' | 'outcome' | 'paid';

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
  field('outcome_hash', 'hash', 'outcome'),
  field('payment', 'payment', 'paid'),
  field('prev_hash', 'hash'),
  field('price_source', 'string', 'inline'),
  field('price_usd', 'number', 'inline'),
  field('reasons', 'strings', 'inline'),
  field('request', 'flat'),
  field('risk_score', 'number'),
  field('seq', 'number'),
  field('tier', 'number'),
  field('ts', 'number'),
  field('wallet', 'string'),
  field('wallet_prev_hash', 'hash'),
]);

/** The record formats: 1 without facts, 2 naming its facts, 3 naming its facts and its outcome (ARCHITECTURE.md "Audit record"). */
export type RecordFormat = 1 | 2 | 3;

/** The `format` a record that names its facts and its outcome carries: what the service writes now. */
export const RECORD_FORMAT = 3;

/** The fields each format has besides a payment, which any format may carry. */
const FORMAT_PRESENCE: Readonly<Record<RecordFormat, readonly FieldPresence[]>> = Object.freeze({
  1: ['always', 'inline'],
  2: ['always', 'inline', 'facts'],
  3: ['always', 'facts', 'outcome'],
});

/** The unpaid fields of one format, in order. */
export function formatFields(format: RecordFormat): readonly RecordField[] {
  return RECORD_FIELDS.filter((f) => FORMAT_PRESENCE[format].includes(f.presence));
}

/** The `format` member a record of a format carries: none on format 1, which predates it. */
export function formatMember(format: RecordFormat): number | undefined {
  return format === 1 ? undefined : format;
}

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
