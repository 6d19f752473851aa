// Compiles TypeBox schemas once with Ajv and reports failures in FastAPI's HTTPValidationError shape.
import type { TSchema, Static } from '@sinclair/typebox';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { boundedEcho, checkShape, SOUND } from './json-shape.js';

/** One entry of HTTPValidationError.detail, with pydantic's error vocabulary. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

export type Where = 'body' | 'query' | 'path' | 'header';
export type Validated<T> = { ok: true; value: T } | { ok: false; detail: ValidationIssue[] };
export type Validator<T> = (input: unknown) => Validated<T>;

// Strict types: no coercion, so "1" is not a number and 1.5 is not an integer. No instance checks a
// schema against the JSON Schema meta-schema when it compiles it: that check compiled the meta-schema
// once per instance, about a tenth of a second each at every start. The schemas are ours and fixed;
// test/unit/schemas/validated-schemas.test.ts checks every one of them against the meta-schema instead.
export const CHECK_OPTIONS = { allErrors: true, verbose: true, coerceTypes: false, strict: false, validateSchema: false } as const;
/**
 * The same check, with minLength and maxLength counted in UTF-16 units (`.length`) rather than in code
 * points: used only on input with no surrogate pair, where the two counts are equal, so it accepts and
 * refuses exactly what CHECK_OPTIONS does. Counting code points walked every string a length bounds,
 * about 0.9 us of a trade's 1.4 us check. (Ajv calls the option deprecated; `logger: false` keeps that
 * note out of the service's log. Were it ever ignored, this check would count code points again: slower, as right.)
 */
export const UTF16_CHECK_OPTIONS = { ...CHECK_OPTIONS, unicode: false, logger: false } as const;
// A second compilation fills the spec's defaults into input already known to be valid, for the
// schemas whose defaults defaultsFiller cannot write itself; a failure reports the input as sent.
export const FILL_OPTIONS = { useDefaults: true, coerceTypes: false, strict: false, validateSchema: false } as const;
const ajv = new Ajv(CHECK_OPTIONS);
const utf16 = new Ajv(UTF16_CHECK_OPTIONS);
const withDefaults = new Ajv(FILL_OPTIONS);

/** Every schema given to compileValidator, in the order given (the meta-schema test reads them). */
const given: TSchema[] = [];
export function validatedSchemas(): readonly TSchema[] {
  return given;
}

/**
 * Query and path parameters arrive as strings: turn the ones whose schema says
 * integer or number into numbers when they are plainly numeric, and leave the
 * rest for the type check to report.
 */
export function numericParams(schema: TSchema, params: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...params };
  const properties = (schema.properties ?? {}) as Record<string, { type?: string }>;
  for (const [name, property] of Object.entries(properties)) {
    const text = params[name];
    if (text === undefined) continue;
    if (property.type === 'integer' && /^-?\d{1,15}$/.test(text)) out[name] = Number(text);
    if (property.type === 'number' && /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(text)) out[name] = Number(text);
  }
  return out;
}

/**
 * A validator for `schema`, compiled on its first call and kept: a process compiles only what it is
 * asked to check (a route's first request pays a few milliseconds, once), where compiling all 27
 * schemas twice at start-up cost about half a second of every start. Later calls compile nothing.
 */
export function compileValidator<S extends TSchema>(schema: S, where: Where): Validator<Static<S>> {
  given.push(schema);
  let codePoints: ValidateFunction | undefined;
  let units: ValidateFunction | undefined;
  let fill: ((input: unknown) => void) | undefined;
  return (input) => {
    // Depth, non-finite numbers and lone surrogates first: no schema keyword catches them.
    const shape = checkShape(input, where);
    if (typeof shape !== 'string') return { ok: false, detail: [shape] };
    const check = shape === SOUND ? (units ??= utf16.compile(schema)) : (codePoints ??= ajv.compile(schema));
    if (check(input)) {
      (fill ??= defaultsFiller(schema))(input);
      return { ok: true, value: input as Static<S> };
    }
    return { ok: false, detail: toIssues(check.errors ?? [], where, input) };
  };
}

/** A primitive default a filler writes as it is; anything else would need a fresh copy per input. */
type Primitive = string | number | boolean | null;

/**
 * What fills `schema`'s defaults into valid input. An object schema whose only defaults are primitive
 * values on its own properties (every request body and query here) gets a loop that writes each one
 * absent, as Ajv's useDefaults does (`=== undefined`), without validating the input a second time
 * (1.3 us of a trade's validation); any other schema, Ajv's filling compilation. A unit test holds
 * the two equal on every schema the service validates.
 */
export function defaultsFiller(schema: TSchema): (input: unknown) => void {
  const top = topLevelDefaults(schema);
  if (top === null) {
    const fill = withDefaults.compile(schema);
    return (input) => void fill(input);
  }
  if (top.length === 0) return () => undefined;
  return (input) => {
    const object = input as Record<string, unknown>;
    // In the schema's order, as Ajv writes them: the filled input's members come out in the same order.
    for (const [name, value] of top) if (object[name] === undefined) object[name] = value;
  };
}

/** The (property, default) pairs of an object schema whose defaults are all primitive and on its own properties; null otherwise. */
function topLevelDefaults(schema: TSchema): [string, Primitive][] | null {
  if (schema.type !== 'object' || 'default' in schema) return null;
  const properties = (schema.properties ?? {}) as Record<string, TSchema>;
  const top: [string, Primitive][] = [];
  for (const [name, property] of Object.entries(properties)) {
    const { default: value, ...rest } = property;
    if (JSON.stringify(rest).includes('"default"')) return null;
    // Ajv's own test for a default (properties.js hasDefault).
    if (value === undefined) continue;
    if (value !== null && typeof value === 'object') return null;
    top.push([name, value as Primitive]);
  }
  // Defaults anywhere else (patternProperties, additionalProperties, a union's branches) are left to Ajv.
  const { properties: _properties, ...others } = schema;
  return JSON.stringify(others).includes('"default"') ? null : top;
}

// When several checks fail at one location, pydantic reports the first; this is its order.
const KEYWORD_RANK: Record<string, number> = {
  required: 0, additionalProperties: 1, type: 2, anyOf: 3, const: 3, enum: 3,
  minLength: 4, maxLength: 4, pattern: 5, exclusiveMinimum: 6, minimum: 6, exclusiveMaximum: 6, maximum: 6,
};

export function toIssues(errors: ErrorObject[], where: Where, input: unknown): ValidationIssue[] {
  const byLocation = new Map<string, ErrorObject>();
  for (const error of withoutUnionNoise(errors)) {
    const key = locationKey(error);
    const seen = byLocation.get(key);
    if (!seen || rank(error) < rank(seen)) byLocation.set(key, error);
  }
  return [...byLocation.values()].map((error) => {
    const issue = toIssue(error, where, input);
    return 'input' in issue ? { ...issue, input: boundedEcho(issue.input) } : issue;
  });
}

function rank(error: ErrorObject): number {
  return KEYWORD_RANK[error.keyword] ?? 9;
}

function locationKey(error: ErrorObject): string {
  if (error.keyword === 'required') return `${error.instancePath}/${error.params.missingProperty}`;
  if (error.keyword === 'additionalProperties') return `${error.instancePath}/${error.params.additionalProperty}`;
  return error.instancePath;
}

/**
 * Ajv reports every failed branch of an anyOf. For a nullable field only the
 * non-null branch speaks; for a union of literals one literal_error stands.
 */
function withoutUnionNoise(errors: ErrorObject[]): ErrorObject[] {
  const unions = errors.filter((error) => error.keyword === 'anyOf');
  return errors.filter((error) => {
    const union = unions.find((u) => error !== u && error.schemaPath.startsWith(`${u.schemaPath}/`));
    if (!union) return error.keyword !== 'anyOf' || isLiteralUnion(error);
    if (isLiteralUnion(union)) return false;
    return error.schemaPath.startsWith(`${union.schemaPath}/0/`);
  });
}

function isLiteralUnion(error: ErrorObject): boolean {
  const branches = (error.schema ?? []) as { const?: unknown }[];
  return Array.isArray(branches) && branches.length > 0 && branches.every((b) => 'const' in b);
}

function pathSegments(instancePath: string): (string | number)[] {
  if (instancePath === '') return [];
  return instancePath
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^(0|[1-9]\d*)$/.test(part) ? Number(part) : part));
}

function toIssue(error: ErrorObject, where: Where, root: unknown): ValidationIssue {
  const loc: (string | number)[] = [where, ...pathSegments(error.instancePath)];
  if (error.keyword === 'required') {
    return { loc: [...loc, error.params.missingProperty as string], msg: 'Field required', type: 'missing', input: error.data ?? root };
  }
  if (error.keyword === 'additionalProperties') {
    const name = error.params.additionalProperty as string;
    const value = (error.data as Record<string, unknown>)[name];
    return { loc: [...loc, name], msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input: value };
  }
  return { loc, ...describe(error, where), input: error.data };
}

type Described = Pick<ValidationIssue, 'msg' | 'type' | 'ctx'>;

function describe(error: ErrorObject, where: Where): Described {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'type': return describeType(p.type as string, error.data, where);
    case 'anyOf': return describeLiterals(error);
    case 'const': return describeLiterals({ ...error, schema: [{ const: p.allowedValue }] });
    case 'minLength': return lengthIssue('string_too_short', 'at least', p.limit as number, 'min_length');
    case 'maxLength': return lengthIssue('string_too_long', 'at most', p.limit as number, 'max_length');
    case 'pattern': return { type: 'string_pattern_mismatch', msg: `String should match pattern '${p.pattern}'`, ctx: { pattern: p.pattern } };
    case 'exclusiveMinimum': return bound('greater_than', 'greater than', 'gt', p.limit);
    case 'minimum': return bound('greater_than_equal', 'greater than or equal to', 'ge', p.limit);
    case 'exclusiveMaximum': return bound('less_than', 'less than', 'lt', p.limit);
    case 'maximum': return bound('less_than_equal', 'less than or equal to', 'le', p.limit);
    case 'maxItems': return listTooLong(p.limit as number, error.data);
    default: return { type: 'value_error', msg: `Value error, ${error.message ?? 'invalid value'}` };
  }
}

function describeType(expected: string, data: unknown, where: Where): Described {
  // Query and path values arrive as text; a number that does not parse is pydantic's *_parsing.
  if (where !== 'body' && typeof data === 'string' && (expected === 'integer' || expected === 'number')) {
    return expected === 'integer'
      ? { type: 'int_parsing', msg: 'Input should be a valid integer, unable to parse string as an integer' }
      : { type: 'float_parsing', msg: 'Input should be a valid number, unable to parse string as a number' };
  }
  if (expected === 'integer' && typeof data === 'number' && Number.isFinite(data)) {
    return { type: 'int_from_float', msg: 'Input should be a valid integer, got a number with a fractional part' };
  }
  const table: Record<string, Described> = {
    string: { type: 'string_type', msg: 'Input should be a valid string' },
    number: { type: 'float_type', msg: 'Input should be a valid number' },
    integer: { type: 'int_type', msg: 'Input should be a valid integer' },
    boolean: { type: 'bool_type', msg: 'Input should be a valid boolean' },
    array: { type: 'list_type', msg: 'Input should be a valid list' },
    object: { type: 'model_attributes_type', msg: 'Input should be a valid dictionary or object to extract fields from' },
  };
  return table[expected] ?? { type: 'value_error', msg: `Input should be of type ${expected}` };
}

function describeLiterals(error: ErrorObject): Described {
  const branches = (error.schema ?? []) as { const?: unknown }[];
  const names = branches.map((b) => `'${String(b.const)}'`);
  const expected = names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}` : names[0];
  return { type: 'literal_error', msg: `Input should be ${expected}`, ctx: { expected } };
}

function lengthIssue(type: string, words: string, limit: number, ctxKey: string): Described {
  const unit = limit === 1 ? 'character' : 'characters';
  return { type, msg: `String should have ${words} ${limit} ${unit}`, ctx: { [ctxKey]: limit } };
}

function bound(type: string, words: string, ctxKey: string, limit: unknown): Described {
  return { type, msg: `Input should be ${words} ${limit}`, ctx: { [ctxKey]: limit } };
}

function listTooLong(limit: number, data: unknown): Described {
  const actual = Array.isArray(data) ? data.length : 0;
  return {
    type: 'too_long',
    msg: `List should have at most ${limit} items after validation, not ${actual}`,
    ctx: { field_type: 'List', max_length: limit, actual_length: actual },
  };
}
