// A verdict's facts with the shared documents they name, and for format 3 the record's request and ts, taken in:
// formats 2 and 3 back into the one document format 1 stored whole, so replay scores all alike (ARCHITECTURE.md "Recorded facts").
import type { RecordedFacts } from '../recorded-facts.js';
import { tradeOfRequest } from '../trade-of-request.js';

export type ResolvedFacts = { ok: true; facts: RecordedFacts } | { ok: false; detail: string };

/** What format 3 facts take from the record that names them. */
export interface RecordSide {
  request: Readonly<Record<string, unknown>>;
  ts: number;
}

interface VerdictFacts {
  format: 2 | 3;
  input: Record<string, unknown>;
  origins: Record<string, unknown>;
  uses: { context: string };
}

const object = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `text`: the facts a record names; `shared`: the documents kept beside them by hash, already held to their hashes;
 * `record`: the record itself, whose hash binds the request and ts format 3 takes from it.
 */
export function resolveFacts(text: string, shared: ReadonlyMap<string, string> | undefined, record: RecordSide): ResolvedFacts {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, detail: 'the facts are not JSON' };
  }
  if (!object(parsed)) return { ok: false, detail: 'the facts are not a JSON object' };
  if (parsed.format === 1) return object(parsed.input) ? { ok: true, facts: parsed as unknown as RecordedFacts } : { ok: false, detail: 'the facts have no input' };
  if (parsed.format !== 2 && parsed.format !== 3) return { ok: false, detail: `facts format ${String(parsed.format)} is not one this replay reads (1, 2, 3)` };
  const verdict = parsed as unknown as VerdictFacts;
  const context = documentOf(shared, verdict.uses?.context, 'context');
  if (!object(verdict.input) || !object(verdict.origins) || context === null) return { ok: false, detail: 'the facts or the context they name are malformed' };
  const uses = object(context.uses) ? context.uses : {};
  const [engine, policy, price, registry, safety] = (['engine', 'policy', 'price', 'registry', 'safety'] as const).map((kind) => documentOf(shared, uses[kind], kind));
  if (engine === null || policy === null || price === null || registry === null || safety === null) {
    return { ok: false, detail: 'a shared document the context names is malformed' };
  }
  // Format 3 keeps the time and the trade's members the request holds in the record only (its ts and request).
  const kept = object(verdict.input.trade) ? verdict.input.trade : undefined;
  const fromRecord = verdict.format === 3 ? { trade: tradeOfRequest(record.request, kept), nowMs: record.ts } : {};
  const input = {
    ...verdict.input, ...fromRecord, policy: policy.policy, price: price.fact, registryBySymbol: registry.by_symbol, registryByAddress: registry.by_address, safety: safety.fact,
  };
  return {
    ok: true,
    facts: {
      format: verdict.format,
      engine: { version: engine.version as string, scoring_table_hash: engine.scoring_table_hash as string },
      input: input as unknown as RecordedFacts['input'],
      origins: { ...verdict.origins, price: price.origin } as unknown as RecordedFacts['origins'],
    },
  };
}

function documentOf(shared: ReadonlyMap<string, string> | undefined, hash: unknown, kind: string): Record<string, unknown> | null {
  const text = typeof hash === 'string' ? shared?.get(hash) : undefined;
  if (text === undefined) return null;
  try {
    const document: unknown = JSON.parse(text);
    return object(document) && document.kind === kind ? document : null;
  } catch {
    return null;
  }
}
