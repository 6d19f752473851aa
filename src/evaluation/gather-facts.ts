// Gathers everything the pure engine needs for one trade: registry, price, safety, daily P&L, policy.
import { budgetDay, parseUsedCents } from '../facts/wallet/daily-budget.js';
import { parsePolicy } from '../facts/wallet/wallet-policy.js';
import { dailyBudgetKey, dangerKey, policyKey, safetyKey } from '../store/keys.js';
import type { DailyPnlReader } from '../facts/wallet/daily-pnl.js';
import type { PriceProvider } from '../facts/prices/price-provider.js';
import { deepFreeze, UNAVAILABLE } from '../facts/prices/price-provider.js';
import { assetFact, type Registry } from '../facts/registry/registry.js';
import type { RiskInput, SafetyFact, Tier, TierPolicy, TradeInput } from '../risk/types.js';
import type { CacheStore } from '../store/cache-store.js';
import { NO_VENUE, VENUE_OFFLINE, type VenueFacts } from '../facts/quote/venue-facts.js';
import { provenSellAmount } from '../facts/safety/proven-sell.js';
import { allAtHand } from './at-hand.js';
import { RecentMap } from '../memo/recent-map.js';

export interface FactSources {
  registry: Registry;
  prices: PriceProvider;
  store: CacheStore;
  /** Daily P&L from chain holdings; absent or null offline, where it is flat (0). */
  dailyPnl?: DailyPnlReader | null;
  /** The venue pool the price impact is quoted on (ARCHITECTURE.md "Price impact"); absent or null offline. */
  venue?: VenueFacts | null;
}

export interface WindowFacts {
  windowCount: number;
  windowLimit: number;
  windowSeconds: number;
  nowMs: number;
  /** The window's hits when it is near its limit (wallet-window.ts). */
  windowHitsMs?: number[];
}

/** Store keys other capabilities write: token-safety danger flags and latest results, wallet policies. */

/**
 * The facts at once when every read is at hand (a store on this machine, a price this block has read, no chain), else
 * once they are read: an evaluation then waits for no promise it does not need (issue 41). Throws or rejects when the
 * store cannot answer, so the caller fails closed.
 */
export function gatherFacts(
  sources: FactSources,
  trade: TradeInput,
  policy: TierPolicy,
  window: WindowFacts,
  entitledTier: Tier = policy.tier,
): RiskInput | Promise<RiskInput> {
  const bySymbol = sources.registry.bySymbol(trade.asset);
  const [dangerAt, safetyAt] = contractKeys(trade.contract_address);
  const { policy: policyAt, budget: budgetAt } = walletKeys(trade.wallet, budgetDay(window.nowMs));
  const keys = [dangerAt, safetyAt, policyAt, budgetAt];
  // The store first: one that throws at once leaves no other read started and unheard.
  const values = sources.store.getManyNow?.(keys) ?? sources.store.getMany(keys);
  const reads = [
    // A fake token is priced as the asset it claims to be, so the caller sees the notional it meant.
    bySymbol ? sources.prices.known?.(bySymbol) ?? sources.prices.quote(bySymbol) : UNAVAILABLE,
    values,
    // Rejects when holdings cannot be read, so the evaluation fails closed.
    sources.dailyPnl ? sources.dailyPnl.pnlUsd(trade.wallet, window.nowMs) : 0,
    // The claimed symbol's pool, like its price; rejects when the node does not answer, so the evaluation fails closed.
    !sources.venue ? VENUE_OFFLINE : bySymbol ? sources.venue.fact(bySymbol) : NO_VENUE,
  ] as const;
  const taken = allAtHand(reads);
  const byAddress = sources.registry.byAddress(trade.contract_address);
  const asked = { trade, policy, window, entitledTier, bySymbol, byAddress };
  return Array.isArray(taken) ? riskInput(asked, taken) : taken.then((read) => riskInput(asked, read));
}

type FactReads = [price: RiskInput['price'], stored: Array<string | null>, dailyPnlUsd: number, venue: RiskInput['venue']];

/** What the trade asked about, and the registry's entries for it, looked up once. */
interface Asked {
  trade: TradeInput;
  policy: TierPolicy;
  window: WindowFacts;
  entitledTier: Tier;
  bySymbol: ReturnType<Registry['bySymbol']>;
  byAddress: ReturnType<Registry['byAddress']>;
}

/** The engine's input from what was read; entries are taken by index, as destructuring would walk an iterator. */
function riskInput({ trade, policy, window, entitledTier, bySymbol, byAddress }: Asked, read: FactReads): RiskInput {
  const stored = read[1];
  const { blockedAssets, limits } = parsePolicy(stored[2]);
  const wallet: RiskInput['wallet'] = {
    windowCount: window.windowCount,
    windowLimit: window.windowLimit,
    windowSeconds: window.windowSeconds,
    dailyPnlUsd: read[2],
  };
  if (window.windowHitsMs) wallet.windowHitsMs = window.windowHitsMs;
  // Today's use is a fact only of a wallet with a daily budget (ARCHITECTURE.md "Fleet limits").
  if (limits !== null && limits.dailyNotionalUsd !== null) wallet.dailyNotionalUsedUsd = parseUsedCents(stored[3]) / 100;
  return {
    trade,
    policy,
    entitledTier,
    registryBySymbol: bySymbol && assetFact(bySymbol),
    registryByAddress: byAddress && assetFact(byAddress),
    price: read[0],
    safety: safetyFact(stored[0], stored[1]),
    wallet,
    blockedAssets,
    ...(limits !== null ? { limits } : {}),
    nowMs: window.nowMs,
    venue: read[3],
  };
}

/**
 * A token's danger and safety keys, and a wallet's policy and budget keys, as written for the tokens and wallets met
 * lately: a fleet asks about the same ones again and again, and the same key strings are then hashed once by the
 * store's lookups, where keys written anew per trade were each built, flattened and hashed (issue 41). Bounded:
 * cleared when full.
 */
const CONTRACT_KEYS = new RecentMap<string, readonly [danger: string, safety: string]>(16_384);
const WALLET_KEYS = new RecentMap<string, { policy: string; day: string; budget: string }>(16_384);

function contractKeys(address: string): readonly [danger: string, safety: string] {
  let keys = CONTRACT_KEYS.get(address);
  if (keys === undefined) CONTRACT_KEYS.set(address, (keys = [dangerKey(address), safetyKey(address)]));
  return keys;
}

/** `day` is budgetDay's text, the same string all day: the budget key is written again when the day turns. */
function walletKeys(wallet: string, day: string): { policy: string; budget: string } {
  let keys = WALLET_KEYS.get(wallet);
  if (keys === undefined || keys.day !== day) WALLET_KEYS.set(wallet, (keys = { policy: policyKey(wallet), day, budget: dailyBudgetKey(wallet, day) }));
  return keys;
}

/**
 * A danger flag (24 h) wins; otherwise the latest token-safety result (`safety:<address>`,
 * minutes), else `unchecked`. Evaluations never run a sell simulation inline.
 */
function safetyFact(danger: string | null, latest: string | null): SafetyFact {
  if (danger === null && latest === null) return UNCHECKED;
  const key = `${danger ?? ''}\u0000${latest ?? ''}`;
  let fact = SAFETY_FACTS.get(key);
  if (fact === undefined) {
    fact = deepFreeze(parsedSafetyFact(danger, latest));
    SAFETY_FACTS.set(key, fact);
  }
  return fact;
}

/**
 * Safety facts by the stored texts they were read from: the same flag or result is read by every
 * trade of its token, and one frozen fact per text lets the recorded facts write its text once
 * (recorded-facts.ts). Bounded: cleared when full.
 */
const SAFETY_FACTS = new RecentMap<string, SafetyFact>(4_096);
const UNCHECKED: SafetyFact = deepFreeze({ severity: 'unchecked', flaggedDanger: false, riskFactors: [], checkedAt: null });

function parsedSafetyFact(danger: string | null, latest: string | null): SafetyFact {
  if (danger !== null) return { severity: 'danger', flaggedDanger: true, riskFactors: parseFactors(danger), checkedAt: checkedAtOf(danger) };
  if (latest === null) return UNCHECKED;
  const parsed = JSON.parse(latest) as { severity?: unknown; sell_proven?: unknown };
  const severity = parsed.severity;
  if (severity !== 'safe' && severity !== 'warn' && severity !== 'danger') throw new Error('stored token-safety result is malformed');
  // The largest sell seen at once, which the engine holds the trade's amount to (ARCHITECTURE.md "Token safety"); absent before the figure was kept.
  const sellProvenAmount = provenSellAmount(parsed);
  return {
    severity, flaggedDanger: false, riskFactors: parseFactors(latest), ...(sellProvenAmount === undefined ? {} : { sellProvenAmount }), checkedAt: checkedAtOf(latest),
  };
}

/** When the stored token-safety result was produced, for the audit record; null when it does not say. */
function checkedAtOf(stored: string): number | null {
  try {
    const checkedAt = (JSON.parse(stored) as { checked_at?: unknown }).checked_at;
    return typeof checkedAt === 'number' && Number.isFinite(checkedAt) ? checkedAt : null;
  } catch {
    return null;
  }
}

function parseFactors(flag: string): string[] {
  try {
    const parsed = JSON.parse(flag) as { risk_factors?: unknown };
    return Array.isArray(parsed.risk_factors) ? parsed.risk_factors.map(String) : [];
  } catch {
    return [];
  }
}

