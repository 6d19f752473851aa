// A verdict's outcome that many verdicts share (its reasons and its price), kept once as a document named by its
// SHA-256, as the shared facts are; a format 3 record names it by `outcome_hash` (ARCHITECTURE.md "Audit record"). Pure.
import * as crypto from 'node:crypto';
import canonicalize from 'canonicalize';
import type { StoredFacts } from './audit-log.js';
import { memberKey } from './layout.js';
import { RecentMap } from '../../memo/recent-map.js';

/** The members of the outcome document besides `kind`, as a listing gives them back beside the record. */
export interface VerdictOutcome {
  price_source: string;
  price_usd: number;
  reasons: string[];
}

/** `kind` tells the outcome document from the facts documents it is kept beside (facts.log, the Redis facts hash). */
const KIND = 'outcome';
const SURROGATE = /[\ud800-\udfff]/;

const MAX_REMEMBERED = 4_096;

/**
 * Documents by what they are written from, a trie over the price source, the price, the number of reasons and each
 * reason: a block's verdicts share a handful of outcomes, and finding one this way hashes each reason string once
 * where writing its text per verdict cost some 4 us (JSON.stringify of the reasons, then a map lookup by the whole
 * text). Bounded: past the bound the trie is begun again.
 */
interface OutcomeNode {
  next: Map<unknown, OutcomeNode>;
  document?: StoredFacts;
}
let root: OutcomeNode = { next: new Map() };
let nodes = 0;

function child(node: OutcomeNode, key: unknown): OutcomeNode {
  let next = node.next.get(key);
  if (next === undefined) {
    node.next.set(key, (next = { next: new Map() }));
    nodes++;
  }
  return next;
}

/**
 * RFC 8785 text of `{kind, price_source, price_usd, reasons}`. For finite numbers and strings free of surrogates,
 * JSON.stringify writes exactly what RFC 8785 does (section 3.2.2) and the keys are written in its order; anything
 * else goes to the `canonicalize` library, which refuses what JCS cannot express.
 */
function outcomeText(outcome: VerdictOutcome): string {
  const { price_source, price_usd, reasons } = outcome;
  const plain = Number.isFinite(price_usd) && !SURROGATE.test(price_source) && reasons.every((reason) => typeof reason === 'string' && !SURROGATE.test(reason));
  if (plain) return `{"kind":"${KIND}","price_source":${JSON.stringify(price_source)},"price_usd":${JSON.stringify(price_usd)},"reasons":${JSON.stringify(reasons)}}`;
  const text = canonicalize({ kind: KIND, price_source, price_usd, reasons });
  if (text === undefined) throw new Error('the verdict outcome has no JSON form');
  return text;
}

/**
 * Outcomes by the hash of their document, each made here or read and held to its hash: a listing resolves a record's
 * `outcome_hash` from here before it reads the store. A hash names one text for good, so what is kept never goes stale.
 */
const BY_HASH = new RecentMap<string, VerdictOutcome>(MAX_REMEMBERED);

function rememberOutcome(hash: string, outcome: VerdictOutcome): void {
  const { price_source, price_usd, reasons } = outcome;
  BY_HASH.set(hash, Object.freeze({ price_source, price_usd, reasons: Object.freeze([...reasons]) as string[] }));
}

/** The outcome document of a verdict: its canonical text and hash, made and hashed once per distinct outcome. */
export function outcomeDocument(outcome: VerdictOutcome): StoredFacts {
  if (nodes >= MAX_REMEMBERED * 8) [root, nodes] = [{ next: new Map() }, 0];
  let node = child(child(child(root, outcome.price_source), outcome.price_usd), outcome.reasons.length);
  for (const reason of outcome.reasons) node = child(node, reason);
  if (node.document === undefined) {
    const text = outcomeText(outcome);
    node.document = Object.freeze({ text, hash: crypto.hash('sha256', text, 'hex') });
    rememberOutcome(node.document.hash, outcome);
  }
  return node.document;
}

/** The outcome named `hash` if one was made or read here since the start, else undefined. */
export function knownOutcome(hash: string): VerdictOutcome | undefined {
  return BY_HASH.get(hash);
}

/** The outcome `text` states when it hashes to `hash` and is an outcome document (remembered for later), else null. */
export function outcomeNamed(hash: string, text: string): VerdictOutcome | null {
  if (crypto.hash('sha256', text, 'hex') !== hash) return null;
  const outcome = outcomeOf(text);
  if (outcome !== null) rememberOutcome(hash, outcome);
  return outcome;
}

/**
 * The outcome a document states, or null when it is not an outcome document. The caller has held its text to its
 * hash (a record names it by hash; a listing or replay takes it only from there).
 */
export function outcomeOf(text: string): VerdictOutcome | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const { kind, price_source, price_usd, reasons } = value as Record<string, unknown>;
  const sound = kind === KIND && typeof price_source === 'string' && typeof price_usd === 'number' &&
    Array.isArray(reasons) && reasons.every((reason) => typeof reason === 'string');
  return sound ? { price_source, price_usd, reasons: reasons as string[] } : null;
}

const OUTCOME_HASH = new RegExp(`${memberKey('outcome_hash')}"([0-9a-f]{64})"`);

/**
 * The `outcome_hash` a stored line names (format 3), or null. Only `channel`, `decision`, `facts_hash` and `format`
 * come before it (layout.ts), so the first match in the line's first 400 bytes is the record's own.
 */
export function outcomeHashOf(line: Uint8Array | string): string | null {
  const text = typeof line === 'string' ? line.slice(0, 400) : Buffer.from(line.buffer, line.byteOffset, Math.min(line.byteLength, 400)).toString('latin1');
  return OUTCOME_HASH.exec(text)?.[1] ?? null;
}
