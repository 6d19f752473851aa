// RFC 8785 text of the plain JSON values a facts document holds, each frozen object written once (ARCHITECTURE.md "Recorded facts").
import { flattened, keyOrder } from '../audit/record/key-order.js';
import { jsonString } from '../audit/record/record.js';

/**
 * The text of each deeply frozen object or array met so far: the registry's asset facts, the tier
 * policies, the engine and the price origins of a block are the same objects request after
 * request, and frozen they cannot change, so each is written once (ARCHITECTURE.md "Recorded facts").
 */
const FROZEN_TEXTS = new WeakMap<object, string>();
/** Frozen values with a member that can still change: written afresh each time, never looked over again. */
const SHALLOW = new WeakSet<object>();

/**
 * RFC 8785 text of plain JSON values: object keys sorted by UTF-16 code units (what Array#sort
 * does with strings), `undefined` members left out, strings and finite numbers as JSON.stringify
 * writes them (RFC 8785 adopts ECMAScript's serialisation for both). Each object shape is sorted
 * once and remembered, and strings that need no escape are quoted as they are: about a quarter
 * of the general library's time on a facts document; a property test holds the two equal.
 * Throws on a non-finite number, which JSON cannot carry.
 */
export function canonicalText(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return jsonString(value);
    case 'number':
      if (!Number.isFinite(value)) throw new RangeError('a non-finite number has no JSON form');
      return String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      break;
    default:
      return JSON.stringify(value);
  }
  if (value === null) return 'null';
  const frozen = Object.isFrozen(value) && !SHALLOW.has(value);
  if (frozen) {
    const known = FROZEN_TEXTS.get(value);
    if (known !== undefined) return known;
  }
  const text = Array.isArray(value) ? arrayText(value) : objectText(value as Record<string, unknown>);
  // Remembered only when every member is a primitive or itself remembered: frozen all the way down.
  // One that is not is marked, so it is not looked over again each time it is met.
  if (frozen) {
    const deep = Object.values(value).every((member) => typeof member !== 'object' || member === null || FROZEN_TEXTS.has(member));
    if (deep) FROZEN_TEXTS.set(value, flattened(text));
    else SHALLOW.add(value);
  }
  return text;
}

function arrayText(value: unknown[]): string {
  let text = '[';
  for (let i = 0; i < value.length; i++) text += (i === 0 ? '' : ',') + canonicalText(value[i] ?? null);
  return `${text}]`;
}

function objectText(object: Record<string, unknown>): string {
  const { keys, texts } = keyOrder(object);
  let text = '';
  for (let i = 0; i < keys.length; i++) {
    const member = object[keys[i]];
    if (member === undefined) continue;
    text += (text === '' ? '{' : ',') + texts[i] + canonicalText(member);
  }
  return text === '' ? '{}' : `${text}}`;
}
