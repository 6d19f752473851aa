// The facts behind a verdict, as its audit record keeps them beside it: the engine's whole input,
// where each fact came from, and which engine and scoring table judged (ARCHITECTURE.md "Recorded facts").
import * as crypto from 'node:crypto';
import type { StoredFacts } from '../audit/record/audit-log.js';
import { ENGINE_VERSION, SCORING_TABLE } from '../risk/scoring-table.js';
import type { PriceOrigin, RiskInput } from '../risk/types.js';
import { canonicalText } from './canonical-text.js';
import { sharedContext } from './shared-facts.js';
import { tradeBesidesRequest } from './trade-of-request.js';
import { RecentMap } from '../memo/recent-map.js';

export { canonicalText };

/**
 * The facts document's own format; a record names its facts by the SHA-256 of their canonical JSON.
 * 1: the whole input in one document. 2: the verdict's own facts, naming the shared ones by hash (`uses`).
 * 3: as 2, less what the record holds already: the trade (its `request`) and the time (its `ts`).
 */
export const FACTS_FORMAT = 3;
/** The formats replay reads: logs written before format 3 keep theirs. */
export const FACTS_FORMATS_READ: readonly number[] = [1, 2, 3];

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

/** A verdict's facts with every shared document taken in: what format 1 stored whole, and what replay scores. */
export interface RecordedFacts {
  format: number;
  engine: { version: string; scoring_table_hash: string };
  input: RiskInput;
  origins: FactOrigins;
}

/** SHA-256 of the RFC 8785 form of the scoring table: a change of rules changes every later record's facts. */
export const SCORING_TABLE_HASH = crypto.hash('sha256', canonicalText(SCORING_TABLE), 'hex');
const ENGINE = Object.freeze({ scoring_table_hash: SCORING_TABLE_HASH, version: ENGINE_VERSION });

/** The facts as stored: their canonical text and its hash, which the record carries, and the shared documents it names. */
export interface SealedFacts extends StoredFacts {
  shared: readonly StoredFacts[];
}

/**
 * The facts of one evaluation (format 3): what is the verdict's own (the wallet's facts and limits, the tier
 * origin, when the safety fact was made) and, by hash, the shared context (the engine, the tier policy, the
 * asset's registry entries, the price and its origin, the token-safety fact), kept once for every verdict that
 * uses it. The trade and the time are the record's: `request` (`tradeOfRequest`) and `ts`, which the evaluation
 * sets to `input.nowMs` (evaluate-trade.ts); `input.trade` keeps only the members the request does not give back
 * (an absent member reads as its spec default, so a recorded request gives back every one), so nothing is ever
 * taken from the record wrongly.
 * The record's `facts_hash` names this document, which names the context, which names the rest, and the record's
 * own hash binds its request and ts: the record still binds everything the verdict was judged on
 * (ARCHITECTURE.md "Recorded facts").
 */
export function sealFacts(input: RiskInput, tier: TierOrigin, request: Readonly<Record<string, unknown>>): SealedFacts {
  const context = sharedContext(ENGINE, input, withoutMember(input.safety, 'checkedAt'));
  // The document's layout is fixed, so its members are written in their RFC 8785 order here rather than sorted per
  // verdict: `{format, input: {...ownFactsText}, origins: {safety_checked_at, tier}, uses: {context}}` (a unit test
  // holds it to the library).
  const checkedAt = canonicalText(input.safety.checkedAt ?? null);
  const text = `{"format":${FACTS_FORMAT},"input":${ownFactsText(input, request)},"origins":{"safety_checked_at":${checkedAt},"tier":${canonicalText(tier)}},"uses":{"context":${canonicalText(context.hash)}}}`;
  return { text, hash: factsHash(text), shared: context.documents };
}

/**
 * Hashes of the facts texts met lately. A fleet's wallets judged on the same facts write the same text (7 distinct
 * texts among 2,000 verdicts of `npm run bench:audit-bytes`' offline fleet), and finding a text in a map costs a
 * fraction of OpenSSL's digest of it (in a loop, 1.3 us for a 330-character document, of which some 0.6 is what any
 * call costs: 100 characters took 0.7-1.0 us, 1,000 took 1.9-2.0). Bounded (RecentMap).
 */
const HASHED = new RecentMap<string, string>(4_096);
/**
 * Longer texts are hashed each time and not kept: a wallet's window hits or a long list of blocked assets make a
 * text that seldom comes again, and the map then holds at most some 4 MB of text.
 */
const MAX_HASHED_CHARS = 1_024;

function factsHash(text: string): string {
  if (text.length > MAX_HASHED_CHARS) return crypto.hash('sha256', text, 'hex');
  let hash = HASHED.get(text);
  if (hash === undefined) HASHED.set(text, (hash = crypto.hash('sha256', text, 'hex')));
  return hash;
}

/**
 * The verdict's own facts, `{blockedAssets, entitledTier, limits, permitRequested, trade, wallet}`, written in that
 * order (RFC 8785's, the keys' UTF-16 order) with a member that is undefined left out, as canonicalText leaves it
 * out of an object. A wallet's own limits are its own facts; none set (null) leaves the member out, so older facts
 * read alike. Written member by member: sorting the keys of an object built for the purpose cost more than its text.
 */
function ownFactsText(input: RiskInput, request: Readonly<Record<string, unknown>>): string {
  let text = member('', '"blockedAssets":', input.blockedAssets);
  text = member(text, '"entitledTier":', input.entitledTier);
  text = member(text, '"limits":', input.limits ? input.limits : undefined);
  text = member(text, '"permitRequested":', input.permitRequested);
  text = member(text, '"trade":', tradeBesidesRequest(input.trade, request));
  text = member(text, '"wallet":', input.wallet);
  return text === '' ? '{}' : `${text}}`;
}

function member(text: string, key: string, value: unknown): string {
  if (value === undefined) return text;
  return `${text === '' ? '{' : `${text},`}${key}${canonicalText(value)}`;
}

/** Copies of frozen facts without the member the record keeps apart, made once per fact, frozen so their text is written once too. */
const STRIPPED = new WeakMap<object, object>();

function withoutMember<T extends object, K extends keyof T>(fact: T, member: K): Omit<T, K> {
  const known = STRIPPED.get(fact);
  if (known !== undefined) return known as Omit<T, K>;
  const { [member]: _left, ...rest } = fact;
  if (Object.isFrozen(fact)) STRIPPED.set(fact, Object.freeze(rest));
  return rest;
}
