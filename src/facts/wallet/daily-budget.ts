// What a wallet's allowed and warned trades used of its daily budget, kept in the shared store per UTC day (ARCHITECTURE.md "Fleet limits").
import type { CacheStore } from '../../store/cache-store.js';
import { dailyBudgetKey } from '../../store/keys.js';
import { utcDay } from './daily-pnl.js';

/** A day's use outlives its day by one more, so every instance's clock has left the day before it goes. */
const KEPT_MS = 2 * 86_400_000;

/** The UTC day of `nowMs` as the key names it: the date the P&L snapshots name, written once a day rather than per verdict. */
export function budgetDay(nowMs: number): string {
  return utcDay(nowMs);
}

export function budgetKey(wallet: string, nowMs: number): string {
  return dailyBudgetKey(wallet, budgetDay(nowMs));
}

/** Stored as whole cents, so sums never drift; absent is nothing used. A corrupt value fails the evaluation (closed). */
export function parseUsedCents(stored: string | null): number {
  if (stored === null) return 0;
  const cents = Number(stored);
  if (!Number.isSafeInteger(cents) || cents < 0) throw new Error(`stored daily budget use is malformed: ${JSON.stringify(stored.slice(0, 40))}`);
  return cents;
}

export const centsOf = (usd: number): number => Math.round(usd * 100);

/**
 * Adds `notionalUsd` to the day's use only if the use is still `seen` (the stored text the verdict
 * was judged on): an atomic compare-and-set, so two instances never both spend the same
 * remainder. False when another verdict changed it first; the caller judges again on the new use.
 */
export async function addToDay(store: CacheStore, key: string, seen: string | null, notionalUsd: number): Promise<boolean> {
  const next = parseUsedCents(seen) + centsOf(notionalUsd);
  return store.compareAndSet(key, seen, String(next), KEPT_MS);
}

/**
 * Gives back what a verdict that was never delivered had added (its payment or its record failed).
 * Best effort, a few tries: a use left counted only refuses more, never allows more.
 */
export async function giveBack(store: CacheStore, key: string, notionalUsd: number): Promise<void> {
  for (let attempt = 0; attempt < 4; attempt++) {
    const seen = await store.get(key);
    const next = Math.max(0, parseUsedCents(seen) - centsOf(notionalUsd));
    if (await store.compareAndSet(key, seen, String(next), KEPT_MS)) return;
  }
}
