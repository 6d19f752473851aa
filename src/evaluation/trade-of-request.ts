// The request a record keeps, and the engine's trade as that request gives it back: what format 3 facts take from the
// record instead of keeping it a second time (ARCHITECTURE.md "Recorded facts").
import { TRADE_DEFAULTS } from '../schemas/trade.js';

/** The spec's defaults, read by any member's name. */
const DEFAULTS: Readonly<Record<string, unknown>> = TRADE_DEFAULTS;

/**
 * What the engine's trade holds for a member the request leaves out (src/schemas/trade.ts `engineTrade`): null, or
 * the spec's default, which the record leaves out (`recordedRequest`).
 */
const WHEN_ABSENT: Readonly<Record<string, unknown>> = Object.freeze({ deadline: null, request_id: null, ...TRADE_DEFAULTS });
/** Every member of the engine's trade. */
const MEMBERS = ['allow_unregistered', 'amount', 'asset', 'contract_address', 'deadline', 'max_slippage_bps', 'request_id', 'side', 'wallet'] as const;
/** The same, as a lookup without a prototype, so a key such as `constructor` is no member. */
const IS_MEMBER: Readonly<Record<string, true>> = Object.freeze(Object.assign(Object.create(null), Object.fromEntries(MEMBERS.map((key) => [key, true]))));

type Json = Readonly<Record<string, unknown>>;

function fromRequest(request: Json, key: string): unknown {
  const value = request[key];
  return value === undefined ? WHEN_ABSENT[key] : value;
}

/**
 * The request as the record keeps it: the body the channel validated, less each member equal to the spec's default
 * for it (`max_slippage_bps` 100, `allow_unregistered` and `permit` false), which a reader puts back (`tradeOfRequest`,
 * docs/audit-records.md). Some 65 bytes a record on a REST body, which has every default filled in.
 */
export function recordedRequest(body: Json): Record<string, unknown> {
  const recorded: Record<string, unknown> = {};
  for (const key in body) {
    if (!Object.hasOwn(DEFAULTS, key) || body[key] !== DEFAULTS[key]) recorded[key] = body[key];
  }
  return recorded;
}

/**
 * The trade a recorded request was judged as: each member as the request holds it (null or the spec's default when
 * absent), then `kept`, the members the facts kept because the request does not give them back.
 */
export function tradeOfRequest(request: Json, kept: Json | undefined): Record<string, unknown> {
  const trade: Record<string, unknown> = {};
  for (const key of MEMBERS) trade[key] = fromRequest(request, key);
  return kept === undefined ? trade : { ...trade, ...kept };
}

/**
 * The members of `trade` that `request` does not give back as they are, for the facts to keep; undefined when it
 * gives back every one, as a recorded request does (`recordedRequest`). A few compares a verdict.
 */
export function tradeBesidesRequest(trade: object, request: Json): Record<string, unknown> | undefined {
  let kept: Record<string, unknown> | undefined;
  const members = trade as Json;
  // The keys alone: Object.entries made an array per member on every verdict.
  for (const key of Object.keys(members)) {
    const value = members[key];
    if (value !== undefined && IS_MEMBER[key] === true && value === fromRequest(request, key)) continue;
    (kept ??= {})[key] = value;
  }
  return kept;
}
