// The facts behind a verdict, as its audit record keeps them beside it: the engine's whole input,
// where each fact came from, and which engine and scoring table judged (ARCHITECTURE.md "Recorded facts").
import * as crypto from 'node:crypto';
import { ENGINE_VERSION, SCORING_TABLE } from '../risk/scoring-table.js';
import type { PriceOrigin, RiskInput } from '../risk/types.js';
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

/** The facts document's own format; a record names its facts by the SHA-256 of their canonical JSON. */
export const FACTS_FORMAT = 1;

/** Why the evaluation ran at its tier. */
export type TierOrigin =
  | { basis: 'holdings'; holdings: number | null }
  | { basis: 'channel'; channel: string }
  | { basis: 'payment' };

export interface FactOrigins {
  price: PriceOrigin | null;
  tier: TierOrigin;
  /** When the token-safety result the evaluation used was produced (ms), null when none was. */
  safety_checked_at: number | null;
}

export interface RecordedFacts {
  format: number;
  engine: { version: string; scoring_table_hash: string };
  input: RiskInput;
  origins: FactOrigins;
}

/** SHA-256 of the RFC 8785 form of the scoring table: a change of rules changes every later record's facts. */
export const SCORING_TABLE_HASH = crypto.hash('sha256', canonicalText(SCORING_TABLE), 'hex');
const ENGINE = Object.freeze({ scoring_table_hash: SCORING_TABLE_HASH, version: ENGINE_VERSION });

/** The facts as stored: their canonical text and its hash, which the record carries. */
export interface SealedFacts {
  text: string;
  hash: string;
}

/**
 * The facts of one evaluation: the engine's input exactly as scored (without the origins the
 * price and safety facts carry for the record), and the origins apart.
 */
export function sealFacts(input: RiskInput, tier: TierOrigin): SealedFacts {
  const price = withoutMember(input.price, 'origin');
  const safety = withoutMember(input.safety, 'checkedAt');
  const origins: FactOrigins = { price: input.price.origin ?? null, tier, safety_checked_at: input.safety.checkedAt ?? null };
  const text = canonicalText({ engine: ENGINE, format: FACTS_FORMAT, input: { ...input, price, safety }, origins });
  return { text, hash: crypto.hash('sha256', text, 'hex') };
}

/** Copies of frozen facts without the member the record keeps apart, made once per fact, frozen so their text is written once too. */
const STRIPPED = new WeakMap<object, object>();

function withoutMember<T extends object>(fact: T, member: keyof T): Omit<T, typeof member> {
  const known = STRIPPED.get(fact);
  if (known !== undefined) return known as Omit<T, typeof member>;
  const { [member]: _left, ...rest } = fact;
  if (Object.isFrozen(fact)) STRIPPED.set(fact, Object.freeze(rest));
  return rest;
}

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
