// A recorded verdict's JSON as the channels answer with it (REST whole, MCP as its tool output), written from its fixed
// layout: what JSON.stringify writes, with less work per verdict.
import { jsonString } from '../audit/record/record.js';
import type { Verdict } from '../schemas/trade.js';

/** The members of a recorded verdict without counterfactuals or a permit, in the order evaluate-trade.ts's recordVerdict makes them. */
const LAYOUT = [
  'decision', 'reasons', 'tier', 'max_trade_usd', 'calculated_notional_usd', 'price_impact_bps', 'price_usd', 'price_source',
  'risk_score', 'timestamp', 'request_id', 'contract_risk', 'daily_pnl_usd', 'audit_hash', 'audit_seq',
] as const;

/** A contract_risk's members, in the order recordVerdict makes them. */
const RISK_LAYOUT = ['severity', 'flagged_danger', 'risk_factors'] as const;

/**
 * `JSON.stringify(verdict)`, character for character (a property test holds them equal). A verdict with exactly
 * LAYOUT's members in LAYOUT's order, nearly every allow, is written member by member, its reasons as the list was
 * written when first met. Under the offline fleet bench's load that is 1.9 us of the main thread's CPU a verdict,
 * against 11.0 when every verdict went to JSON.stringify (`perf record -e cpu-clock` samples of the service over 8 s
 * of `wrk`, this function and all it calls). Any other verdict (counterfactuals, a permit, an error, a member of
 * another type) goes to JSON.stringify itself.
 */
export function verdictText(verdict: Verdict): string {
  if (!laidOut(verdict, LAYOUT)) return JSON.stringify(verdict);
  const v = verdict as Record<(typeof LAYOUT)[number], unknown>;
  // Held in locals, not an array: one object fewer per verdict.
  const decision = stringText(v.decision);
  const reasons = stringsText(v.reasons);
  const tier = numberText(v.tier);
  const maxTrade = numberText(v.max_trade_usd);
  const notional = numberText(v.calculated_notional_usd);
  const impact = nullableNumberText(v.price_impact_bps);
  const price = numberText(v.price_usd);
  const source = stringText(v.price_source);
  const score = numberText(v.risk_score);
  const timestamp = numberText(v.timestamp);
  const requestId = nullableStringText(v.request_id);
  const risk = riskText(v.contract_risk);
  const pnl = numberText(v.daily_pnl_usd);
  const hash = nullableStringText(v.audit_hash);
  const seq = nullableNumberText(v.audit_seq);
  if (decision === null || reasons === null || tier === null || maxTrade === null || notional === null || impact === null || price === null
    || source === null || score === null || timestamp === null || requestId === null || risk === null || pnl === null || hash === null || seq === null) {
    return JSON.stringify(verdict);
  }
  return `{"decision":${decision},"reasons":${reasons},"tier":${tier},"max_trade_usd":${maxTrade},"calculated_notional_usd":${notional},`
    + `"price_impact_bps":${impact},"price_usd":${price},"price_source":${source},"risk_score":${score},"timestamp":${timestamp},`
    + `"request_id":${requestId},"contract_risk":${risk},"daily_pnl_usd":${pnl},"audit_hash":${hash},"audit_seq":${seq}}`;
}

/** The members of evaluate_trade's output (VerdictOutput: a verdict without timestamp, contract_risk, daily_pnl_usd), in LAYOUT's order. */
const TOOL_LAYOUT = [
  'decision', 'reasons', 'tier', 'max_trade_usd', 'calculated_notional_usd', 'price_impact_bps', 'price_usd', 'price_source',
  'risk_score', 'request_id', 'audit_hash', 'audit_seq',
] as const;

/** evaluate_trade's output as JSON, and that JSON as it stands inside a JSON string: the tool result's text content. */
export interface ToolVerdictJson {
  text: string;
  /** `JSON.stringify(text)` without its outer quotes. */
  quoted: string;
}

/**
 * `JSON.stringify(output)` for the MCP tool's output, written as verdictText writes a verdict, and its quoted form
 * written beside it rather than by scanning the whole text again: an output with exactly TOOL_LAYOUT's members in
 * order is written member by member, anything else by JSON.stringify (a property test holds both forms equal).
 */
export function toolVerdictJson(output: Readonly<Record<string, unknown>>): ToolVerdictJson {
  if (!laidOut(output, TOOL_LAYOUT)) return stringified(output);
  const v = output as Record<(typeof TOOL_LAYOUT)[number], unknown>;
  const decision = stringText(v.decision);
  const reasons = stringsJson(v.reasons);
  const tier = numberText(v.tier);
  const maxTrade = numberText(v.max_trade_usd);
  const notional = numberText(v.calculated_notional_usd);
  const impact = nullableNumberText(v.price_impact_bps);
  const price = numberText(v.price_usd);
  const source = stringText(v.price_source);
  const score = numberText(v.risk_score);
  const requestId = nullableStringText(v.request_id);
  const hash = nullableStringText(v.audit_hash);
  const seq = nullableNumberText(v.audit_seq);
  if (decision === null || reasons === null || tier === null || maxTrade === null || notional === null || impact === null || price === null
    || source === null || score === null || requestId === null || hash === null || seq === null) {
    return stringified(output);
  }
  const text = `{"decision":${decision},"reasons":${reasons.text},"tier":${tier},"max_trade_usd":${maxTrade},"calculated_notional_usd":${notional},`
    + `"price_impact_bps":${impact},"price_usd":${price},"price_source":${source},"risk_score":${score},`
    + `"request_id":${requestId},"audit_hash":${hash},"audit_seq":${seq}}`;
  // Numbers and null hold no quote or backslash: only the keys and the strings are escaped.
  const quoted = `{\\"decision\\":${quotedString(decision)},\\"reasons\\":${reasons.quoted},\\"tier\\":${tier},\\"max_trade_usd\\":${maxTrade},`
    + `\\"calculated_notional_usd\\":${notional},\\"price_impact_bps\\":${impact},\\"price_usd\\":${price},\\"price_source\\":${quotedString(source)},`
    + `\\"risk_score\\":${score},\\"request_id\\":${quotedString(requestId)},\\"audit_hash\\":${quotedString(hash)},\\"audit_seq\\":${seq}}`;
  return { text, quoted };
}

function stringified(value: unknown): ToolVerdictJson {
  const text = JSON.stringify(value);
  return { text, quoted: JSON.stringify(text).slice(1, -1) };
}

/**
 * JSON text as it stands inside a JSON string: each quote and backslash escaped. JSON.stringify writes no control
 * character raw and escapes every lone surrogate, so those two are all that JSON.stringify escapes in its own output.
 */
function inString(json: string): string {
  return json.replace(QUOTE_OR_BACKSLASH, '\\$&');
}
const QUOTE_OR_BACKSLASH = /["\\]/g;

/**
 * A string member's JSON, or `null`, as inString writes it, with no regex for what is nearly every member: a string
 * whose JSON holds no quote or backslash between its own two quotes needs only those two escaped.
 */
function quotedString(json: string): string {
  if (json === 'null') return json;
  const inner = json.slice(1, -1);
  return inner.includes('"') || inner.includes('\\') ? inString(json) : `\\"${inner}\\"`;
}

/** Whether `object`'s enumerable members are exactly `layout`, in its order (the order JSON.stringify writes them in). */
function laidOut(object: object, layout: readonly string[]): boolean {
  let index = 0;
  for (const name in object) {
    if (name !== layout[index]) return false;
    index++;
  }
  return index === layout.length;
}

// Each writer gives a member's JSON, or null for a value it does not expect (the caller then leaves it all to JSON.stringify).

function stringText(value: unknown): string | null {
  return typeof value === 'string' ? jsonString(value) : null;
}

function nullableStringText(value: unknown): string | null {
  return value === null ? 'null' : stringText(value);
}

/** JSON.stringify's number: the ECMAScript Number-to-String form, null for NaN and the infinities. */
function numberText(value: unknown): string | null {
  if (typeof value !== 'number') return null;
  return Number.isFinite(value) ? `${value}` : 'null';
}

function nullableNumberText(value: unknown): string | null {
  return value === null ? 'null' : numberText(value);
}

function stringsText(value: unknown): string | null {
  if (!Array.isArray(value)) return null;
  return value.length === 0 ? '[]' : (listNode(value)?.text ?? JSON.stringify(value));
}

const EMPTY_LIST = Object.freeze({ text: '[]', quoted: '[]' });

/** A list's JSON and its quoted form (ToolVerdictJson), or null for a value that is not an array. */
function stringsJson(value: unknown): { text: string; quoted: string } | null {
  if (!Array.isArray(value)) return null;
  if (value.length === 0) return EMPTY_LIST;
  const node = listNode(value);
  if (node === null) {
    const text = JSON.stringify(value);
    return { text, quoted: inString(text) };
  }
  node.quoted ??= inString(node.text!);
  return node as { text: string; quoted: string };
}

/**
 * The JSON of string lists met before, by a trie over their strings. A block's verdicts share a handful of reason
 * lists, and a reason is hashed once already on its way to the audit record (outcome.ts), so a few map lookups
 * find the text where JSON.stringify scanned every character of every reason again, verdict after verdict.
 * Bounded: past MAX_LIST_NODES the trie is begun again.
 */
interface ListNode {
  next: Map<string, ListNode>;
  text?: string;
  quoted?: string;
}
const MAX_LIST_NODES = 4_096;
let lists: ListNode = { next: new Map() };
let listNodes = 0;

/** The list's node, its text written; null for a list holding anything but strings. */
function listNode(values: unknown[]): ListNode | null {
  if (listNodes >= MAX_LIST_NODES) [lists, listNodes] = [{ next: new Map() }, 0];
  let node = lists;
  for (const value of values) {
    if (typeof value !== 'string') return null;
    let next = node.next.get(value);
    if (next === undefined) {
      node.next.set(value, (next = { next: new Map() }));
      listNodes++;
    }
    node = next;
  }
  node.text ??= JSON.stringify(values);
  return node;
}

function riskText(value: unknown): string | null {
  if (value === null) return 'null';
  if (typeof value !== 'object') return null;
  if (!laidOut(value, RISK_LAYOUT)) return JSON.stringify(value);
  const risk = value as Record<(typeof RISK_LAYOUT)[number], unknown>;
  const severity = stringText(risk.severity);
  const factors = stringsText(risk.risk_factors);
  if (severity === null || typeof risk.flagged_danger !== 'boolean' || factors === null) return JSON.stringify(value);
  return `{"severity":${severity},"flagged_danger":${risk.flagged_danger},"risk_factors":${factors}}`;
}
