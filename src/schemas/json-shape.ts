// What any JSON input must be before a schema looks at it: bounded depth, finite numbers, well-formed text.
import { INPUT_LIMITS } from '../catalogue/published-facts.js';
import type { ValidationIssue, Where } from './validator.js';

/** Deepest nesting any input may have (catalogue INPUT_LIMITS). */
export const MAX_JSON_DEPTH = INPUT_LIMITS.maxJsonDepth;

/** A 422's `input` echoes at most this many characters of the offending value's JSON (catalogue INPUT_LIMITS). */
export const MAX_ECHO_CHARS = INPUT_LIMITS.maxEchoChars;

/** A sound input none of whose strings or keys holds a surrogate pair: each is as long in code points as in UTF-16 units. */
export const SOUND = 'sound';
/** A sound input with a surrogate pair somewhere: a length in code points (pydantic's, and Ajv's minLength) differs from `.length`. */
export const SOUND_WITH_PAIRS = 'sound, with surrogate pairs';
export type Shape = typeof SOUND | typeof SOUND_WITH_PAIRS;

/** shapeProblem's answer as a problem or null. */
export function shapeProblem(value: unknown, where: Where): ValidationIssue | null {
  const shape = checkShape(value, where);
  return typeof shape === 'string' ? null : shape;
}

/**
 * Walks a parsed value without recursion (a 64 KB body can nest 30,000 deep) and
 * reports the first thing no schema should ever see: nesting past MAX_JSON_DEPTH,
 * a number JSON.parse turned into Infinity (`1e309`), or a string or key with a
 * lone UTF-16 surrogate (`"\ud800"`), which RFC 8785 cannot canonicalize. A sound
 * input is told apart by whether any string or key holds a surrogate pair.
 */
export function checkShape(value: unknown, where: Where): ValidationIssue | Shape {
  const flat = flatShape(value);
  if (flat !== null) return flat;
  let pairs = false;
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: node, path } = stack.pop()!;
    if (typeof node === 'number' && !Number.isFinite(node)) return finiteIssue(where, path, node);
    if (typeof node === 'string') {
      const surrogates = surrogatesIn(node);
      if (surrogates === LONE) return unicodeIssue(where, path, node);
      pairs ||= surrogates === PAIRED;
    }
    if (node === null || typeof node !== 'object') continue;
    if (path.length >= MAX_JSON_DEPTH) return depthIssue(where, path, value);
    const entries = Array.isArray(node) ? node.entries() : Object.entries(node);
    for (const [key, child] of entries) {
      if (typeof key === 'string') {
        const surrogates = surrogatesIn(key);
        if (surrogates === LONE) return unicodeIssue(where, path, key);
        pairs ||= surrogates === PAIRED;
      }
      stack.push({ value: child, path: [...path, key] });
    }
  }
  return pairs ? SOUND_WITH_PAIRS : SOUND;
}

/**
 * Most bodies are one object of strings, numbers, booleans and nulls: seen sound in one pass,
 * without the walk's path for each member (issue 30). Anything else, or any doubt, takes the walk
 * (null), which also names the problem.
 */
function flatShape(value: unknown): Shape | null {
  if (MAX_JSON_DEPTH < 1 || value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  let pairs = false;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) return null;
    const inKey = surrogatesIn(key);
    if (inKey === LONE) return null;
    const member = (value as Record<string, unknown>)[key];
    if (typeof member === 'object' && member !== null) return null;
    if (typeof member === 'number' && !Number.isFinite(member)) return null;
    const inMember = typeof member === 'string' ? surrogatesIn(member) : NONE;
    if (inMember === LONE) return null;
    pairs ||= inKey === PAIRED || inMember === PAIRED;
  }
  return pairs ? SOUND_WITH_PAIRS : SOUND;
}

const SURROGATE = /[\ud800-\udfff]/;
const NONE = 0;
const PAIRED = 1;
const LONE = 2;

/** What surrogates `text` holds: none (one scan, all nearly every input needs), only pairs, or a lone one. */
function surrogatesIn(text: string): typeof NONE | typeof PAIRED | typeof LONE {
  if (!SURROGATE.test(text)) return NONE;
  return isWellFormed(text) ? PAIRED : LONE;
}

function isWellFormed(text: string): boolean {
  return (text as string & { isWellFormed(): boolean }).isWellFormed();
}

function finiteIssue(where: Where, path: (string | number)[], input: number): ValidationIssue {
  // JSON has no Infinity: echo the value as the text it overflowed from could not be kept.
  return { loc: [where, ...path], msg: 'Input should be a finite number', type: 'finite_number', input: String(input) };
}

function unicodeIssue(where: Where, path: (string | number)[], input: string): ValidationIssue {
  return {
    loc: [where, ...path],
    msg: 'Input should be a valid string, unable to parse raw data as a unicode string (lone UTF-16 surrogate)',
    type: 'string_unicode',
    input: boundedEcho(input),
  };
}

/** Reported at the top-level field that holds the deep value, which is where a caller can fix it. */
function depthIssue(where: Where, path: (string | number)[], root: unknown): ValidationIssue {
  const field = path.slice(0, 1);
  const input = field.length === 0 ? root : (root as Record<string | number, unknown>)[field[0]!];
  return {
    loc: [where, ...field],
    msg: `JSON input nests deeper than ${MAX_JSON_DEPTH} levels`,
    type: 'json_invalid',
    input: boundedEcho(input),
    ctx: { error: 'recursion limit exceeded', max_depth: MAX_JSON_DEPTH },
  };
}

/**
 * The value itself when its JSON is at most MAX_ECHO_CHARS long; otherwise the
 * first MAX_ECHO_CHARS characters of that JSON followed by "...". Never walks more
 * than it writes, so a deep or huge input costs no more than the echo.
 */
export function boundedEcho(value: unknown): unknown {
  if (value === undefined || value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'string') return value.length <= MAX_ECHO_CHARS ? value : `${cut(value, MAX_ECHO_CHARS)}...`;
  const out: string[] = [];
  const fits = writeBounded(value, out, { left: MAX_ECHO_CHARS });
  return fits ? value : `${cut(out.join(''), MAX_ECHO_CHARS)}...`;
}

/** Appends `value`'s JSON to `out` until the budget runs out; false when it did. */
function writeBounded(value: unknown, out: string[], budget: { left: number }): boolean {
  const emit = (text: string): boolean => {
    out.push(text);
    budget.left -= text.length;
    return budget.left >= 0;
  };
  if (value === null || typeof value !== 'object') return emit(JSON.stringify(value) ?? 'null');
  const isArray = Array.isArray(value);
  if (!emit(isArray ? '[' : '{')) return false;
  let first = true;
  for (const [key, child] of Object.entries(value)) {
    if (!first && !emit(',')) return false;
    first = false;
    if (!isArray && !emit(`${JSON.stringify(key)}:`)) return false;
    if (!writeBounded(child, out, budget)) return false;
  }
  return emit(isArray ? ']' : '}');
}

/** Cuts text to `length` characters without splitting a surrogate pair. */
function cut(text: string, length: number): string {
  if (text.length <= length) return text;
  const code = text.charCodeAt(length - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? length - 1 : length);
}
