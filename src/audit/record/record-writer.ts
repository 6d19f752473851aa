// The record's canonical writer, generated once from its layout (layout.ts RECORD_FIELDS), as fast-json-stringify does
// for a schema: one straight-line function per record format, its keys and their order fixed in the code, so a seal
// runs no loop over the layout, no switch on a field's type and no presence test (ARCHITECTURE.md "Audit record").
import type { AuditRecordBody } from './record.js';
import { formatFields, type FieldType, type RecordField, type RecordFormat } from './layout.js';

/** A value's RFC 8785 text, or null to leave the whole record to the general library. */
export type ValueWriter = (value: unknown) => string | null;

/** The writer for each value type the generated code calls; `payment` has none, so paid records go to the library. */
export type ValueWriters = Record<Exclude<FieldType, 'payment'>, ValueWriter>;

/** Writes a record of one format, or returns null when a value needs the general library. */
export type RecordWriter = (body: AuditRecordBody) => string | null;

/**
 * The function text for the fields present in one format: each value written by its type's writer, a null from any
 * of them returning null, keys as literals. Names are layout constants (checked below), never caller input.
 */
function writerSource(fields: readonly RecordField[]): string {
  const lines = fields.map((field, i) => {
    if (!/^[a-z_]+$/.test(field.name)) throw new Error(`record field ${field.name} cannot be written into generated code`);
    const prefix = JSON.stringify((i === 0 ? '{' : ',') + field.key);
    return `const v${i} = w.${field.type}(b.${field.name}); if (v${i} === null) return null;`
      + `\n  t += ${prefix} + v${i};`;
  });
  return `let t = '';\n  ${lines.join('\n  ')}\n  return t + '}';`;
}

function compile(fields: readonly RecordField[], writers: ValueWriters): RecordWriter {
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- generated from the fixed layout, as a schema compiler does
  const make = new Function('w', `return function writeRecord(b) {\n  ${writerSource(fields)}\n};`) as (w: ValueWriters) => RecordWriter;
  return make(writers);
}

/** One writer per format (1: no facts; 2: names its facts; 3: names its facts and its outcome), none paid. */
export type RecordWriters = Readonly<Record<RecordFormat, RecordWriter>>;

/** Generates the writers for the unpaid formats from the layout (formatFields); a paid record has no generated writer. */
export function generateRecordWriters(writers: ValueWriters): RecordWriters {
  return { 1: compile(formatFields(1), writers), 2: compile(formatFields(2), writers), 3: compile(formatFields(3), writers) };
}
