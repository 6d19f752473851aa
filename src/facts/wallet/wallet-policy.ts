// A wallet's policy in the shared store: its blocked assets, read by every evaluation and written by /api/v1/config.
import type { CacheStore } from '../../store/cache-store.js';
import { policyKey } from '../../store/keys.js';

import { ADDRESS_PATTERN } from '../../schemas/common.js';

const ADDRESS = new RegExp(ADDRESS_PATTERN);

/** The stored value is `{"blocked_assets": [...]}`; a corrupt one fails the evaluation (closed). */
export function parseBlocked(policy: string | null): string[] {
  if (policy === null) return [];
  const parsed = JSON.parse(policy) as { blocked_assets?: unknown };
  if (!Array.isArray(parsed.blocked_assets)) throw new Error('stored wallet policy is malformed');
  return parsed.blocked_assets.map(String);
}

/** Symbols compare upper-case and addresses lower-case; duplicates collapse, first one kept. */
export function normalizeBlocked(entries: string[]): string[] {
  const normalized = entries.map((entry) => entry.trim()).map((entry) => (ADDRESS.test(entry) ? entry.toLowerCase() : entry.toUpperCase()));
  return [...new Set(normalized)];
}

export async function readBlocked(store: CacheStore, wallet: string): Promise<string[]> {
  return parseBlocked(await store.get(policyKey(wallet)));
}

/** Replaces the list; no expiry, so every instance enforces the same one. Returns what was stored. */
export async function writeBlocked(store: CacheStore, wallet: string, entries: string[]): Promise<string[]> {
  const blocked = normalizeBlocked(entries);
  await store.set(policyKey(wallet), JSON.stringify({ blocked_assets: blocked }), 0);
  return blocked;
}
