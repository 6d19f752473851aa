// The facts many verdicts share, each kept once as its own document named by its hash: the engine, a tier
// policy, the registry entries of an asset, a block's price reading, a token's safety fact, and the context that names one of each
// (ARCHITECTURE.md "Recorded facts").
import * as crypto from 'node:crypto';
import type { StoredFacts } from '../audit/record/audit-log.js';
import type { PriceFact, RegistryFact, RiskInput, SafetyFact, TierPolicy, VenueFact } from '../risk/types.js';
import { canonicalText } from './canonical-text.js';
import { RecentMap } from '../memo/recent-map.js';

/** What a verdict's facts name by `uses.context`: the context's hash, and every shared document it takes, the context last. */
export interface SharedContext {
  hash: string;
  documents: readonly StoredFacts[];
}

export interface EngineFacts {
  version: string;
  scoring_table_hash: string;
}

/** The shapes of the shared documents; `kind` tells them from a verdict's own facts in a facts log. */
export type SharedDocument =
  | { kind: 'engine'; version: string; scoring_table_hash: string }
  | { kind: 'policy'; policy: TierPolicy }
  | { kind: 'registry'; by_symbol?: RegistryFact | null; by_address?: RegistryFact | null }
  | { kind: 'price'; fact: Omit<PriceFact, 'origin'>; origin: PriceFact['origin'] | null }
  | { kind: 'safety'; fact: Omit<SafetyFact, 'checkedAt'> }
  /** The venue pool state the price impact was quoted on, or why none was read (ARCHITECTURE.md "Price impact"). */
  | { kind: 'venue'; fact: VenueFact }
  | { kind: 'context'; uses: { engine: string; policy: string; price: string; registry: string; safety: string; venue?: string } };

function stored(document: SharedDocument): StoredFacts {
  const text = canonicalText(document);
  return Object.freeze({ text, hash: crypto.hash('sha256', text, 'hex') });
}

/**
 * Documents by the frozen objects they are written from: those are the same objects verdict after verdict
 * (FactMemo freezes a block's price, the registry its asset facts, tiers.ts the policies), so each document
 * is written and hashed once. An object that is not frozen could still change, and is written afresh.
 */
const BY_OBJECT = new WeakMap<object, StoredFacts>();
/** A small number per frozen object, so a pair or a triple of them has a short key. */
const IDS = new WeakMap<object, number>();
let nextId = 1;
/** Registry pairs and contexts by the ids of what they take; bounded, cleared when full. */
const BY_KEY = new RecentMap<string, StoredFacts>(8_192);

function idOf(value: object | null | undefined): number | null {
  // Absent and null are written differently (an absent member is left out), so they differ here too.
  if (value === undefined) return -1;
  if (value === null) return 0;
  if (!Object.isFrozen(value)) return null;
  let id = IDS.get(value);
  if (id === undefined) IDS.set(value, (id = nextId++));
  return id;
}

function byObject(value: object, build: () => SharedDocument): StoredFacts {
  if (!Object.isFrozen(value)) return stored(build());
  let document = BY_OBJECT.get(value);
  if (document === undefined) BY_OBJECT.set(value, (document = stored(build())));
  return document;
}

function byKey(key: string | null, build: () => SharedDocument): StoredFacts {
  if (key === null) return stored(build());
  let document = BY_KEY.get(key);
  if (document === undefined) BY_KEY.set(key, (document = stored(build())));
  return document;
}

function priceDocument(price: PriceFact): StoredFacts {
  return byObject(price, () => {
    const { origin, ...fact } = price;
    return { kind: 'price', fact, origin: origin ?? null };
  });
}

function registryDocument(bySymbol: RegistryFact | null | undefined, byAddress: RegistryFact | null | undefined): StoredFacts {
  const [symbol, address] = [idOf(bySymbol), idOf(byAddress)];
  const key = symbol === null || address === null ? null : `r${symbol}:${address}`;
  return byKey(key, () => ({ kind: 'registry', by_symbol: bySymbol, by_address: byAddress }));
}

/**
 * The context of one verdict: the engine, its tier policy, its asset's registry entries, its price, its token's
 * safety fact (`safety`: without the time it was made, which is the verdict's own origin) and its venue pool state
 * (`venue`, one per block and pool, absent from facts gathered before the price-impact rule), each a document of its own.
 */
export function sharedContext(engine: EngineFacts, input: RiskInput, safety: Omit<SafetyFact, 'checkedAt'>): SharedContext {
  const last = lastContext;
  if (
    last !== null && last.engine === engine && last.policy === input.policy && last.price === input.price && last.safety === safety &&
    last.bySymbol === input.registryBySymbol && last.byAddress === input.registryByAddress && last.venue === input.venue
  ) {
    return last.context;
  }
  const context = contextOf(engine, input, safety);
  const taken = [engine, input.policy, input.price, safety, input.registryBySymbol, input.registryByAddress, input.venue];
  lastContext = taken.every((value) => value === null || value === undefined || Object.isFrozen(value))
    ? { engine, policy: input.policy, price: input.price, safety, bySymbol: input.registryBySymbol, byAddress: input.registryByAddress, venue: input.venue, context }
    : null;
  return context;
}

/**
 * The objects the context last made was made from, when every one was frozen, and that context. A fleet's verdicts on
 * one asset within a block take the very same objects (the block's price, the registry's entries, the tier's policy,
 * the token's safety fact), so each after the first is a few compares (ARCHITECTURE.md "Recorded facts").
 */
let lastContext: {
  engine: EngineFacts; policy: object; price: object; safety: object;
  bySymbol: RegistryFact | null | undefined; byAddress: RegistryFact | null | undefined; venue: VenueFact | undefined;
  context: SharedContext;
} | null = null;

function contextOf(engine: EngineFacts, input: RiskInput, safety: Omit<SafetyFact, 'checkedAt'>): SharedContext {
  const parts = {
    engine: byObject(engine, () => ({ kind: 'engine', ...engine })),
    policy: byObject(input.policy, () => ({ kind: 'policy', policy: input.policy })),
    price: priceDocument(input.price),
    registry: registryDocument(input.registryBySymbol, input.registryByAddress),
    safety: byObject(safety, () => ({ kind: 'safety', fact: safety })),
  };
  const venue = input.venue;
  const venueDocument = venue === undefined ? null : byObject(venue, () => ({ kind: 'venue', fact: venue }));
  const list = [parts.engine, parts.policy, parts.price, parts.registry, parts.safety, ...(venueDocument === null ? [] : [venueDocument])];
  const ids = list.map(idOf);
  const key = ids.includes(null) ? null : `c${ids.join(':')}`;
  const context = byKey(key, () => ({
    kind: 'context',
    uses: {
      engine: parts.engine.hash, policy: parts.policy.hash, price: parts.price.hash, registry: parts.registry.hash, safety: parts.safety.hash,
      ...(venueDocument === null ? {} : { venue: venueDocument.hash }),
    },
  }));
  // The documents list is made once per context too; the stored documents are frozen so they serve as keys above.
  return contextWith(context, list);
}

const WITH_PARTS = new WeakMap<StoredFacts, SharedContext>();

function contextWith(context: StoredFacts, parts: StoredFacts[]): SharedContext {
  let shared = WITH_PARTS.get(context);
  if (shared === undefined || parts.some((part, i) => shared!.documents[i] !== part)) {
    shared = Object.freeze({ hash: context.hash, documents: Object.freeze([...parts, context]) });
    WITH_PARTS.set(context, shared);
  }
  return shared;
}
