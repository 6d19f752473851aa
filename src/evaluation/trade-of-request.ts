// The engine's trade as a record's `request` gives it back: what format 3 facts take from the record instead of
// keeping it a second time (ARCHITECTURE.md "Recorded facts").

/** Members a request may leave out, which the engine's trade holds as null (src/schemas/trade.ts `engineTrade`). */
const NULL_WHEN_ABSENT = new Set(['deadline', 'request_id']);
/** Every member of the engine's trade. */
const MEMBERS = ['allow_unregistered', 'amount', 'asset', 'contract_address', 'deadline', 'max_slippage_bps', 'request_id', 'side', 'wallet'] as const;

type Json = Readonly<Record<string, unknown>>;

function fromRequest(request: Json, key: string): unknown {
  const value = request[key];
  return value === undefined && NULL_WHEN_ABSENT.has(key) ? null : value;
}

/**
 * The trade a recorded request was judged as: each member as the request holds it, then `kept`, the members the
 * facts kept because the request does not give them back (a default the channel filled in and did not record).
 */
export function tradeOfRequest(request: Json, kept: Json | undefined): Record<string, unknown> {
  const trade: Record<string, unknown> = {};
  for (const key of MEMBERS) trade[key] = fromRequest(request, key);
  return kept === undefined ? trade : { ...trade, ...kept };
}

/**
 * The members of `trade` that `request` does not give back as they are, for the facts to keep; undefined when it
 * gives back every one (a REST body, which records its defaults). A few compares a verdict.
 */
export function tradeBesidesRequest(trade: object, request: Json): Record<string, unknown> | undefined {
  let kept: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(trade)) {
    if (value !== undefined && value === fromRequest(request, key) && (MEMBERS as readonly string[]).includes(key)) continue;
    (kept ??= {})[key] = value;
  }
  return kept;
}
