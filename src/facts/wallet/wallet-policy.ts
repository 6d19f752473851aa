// A wallet's policy in the shared store: its blocked assets and its own limits, read by every evaluation and written by /api/v1/config.
import type { CacheStore } from '../../store/cache-store.js';
import { policyKey } from '../../store/keys.js';
import type { WalletLimits } from '../../risk/types.js';
import { ADDRESS_PATTERN } from '../../schemas/common.js';
import { limitsFromWire, limitsToWire, type WireLimits } from './wallet-limits.js';

const ADDRESS = new RegExp(ADDRESS_PATTERN);

export interface WalletPolicy {
  blockedAssets: string[];
  limits: WalletLimits | null;
}

/** The stored value is `{"blocked_assets": [...], "limits": {...} | null}`; a corrupt one fails the evaluation (closed). */
export function parsePolicy(policy: string | null): WalletPolicy {
  if (policy === null) return { blockedAssets: [], limits: null };
  const parsed = JSON.parse(policy) as { blocked_assets?: unknown; limits?: unknown };
  if (!Array.isArray(parsed.blocked_assets)) throw new Error('stored wallet policy is malformed');
  if (parsed.limits !== undefined && parsed.limits !== null && typeof parsed.limits !== 'object') throw new Error('stored wallet limits are malformed');
  return { blockedAssets: parsed.blocked_assets.map(String), limits: limitsFromWire((parsed.limits ?? null) as WireLimits | null) };
}

/** Symbols compare upper-case and addresses lower-case; duplicates collapse, first one kept. */
export function normalizeBlocked(entries: string[]): string[] {
  const normalized = entries.map((entry) => entry.trim()).map((entry) => (ADDRESS.test(entry) ? entry.toLowerCase() : entry.toUpperCase()));
  return [...new Set(normalized)];
}

/** The policy and the stored text it was read from, which a change must still find to replace it. */
export async function readPolicy(store: CacheStore, wallet: string): Promise<{ policy: WalletPolicy; text: string | null }> {
  const text = await store.get(policyKey(wallet));
  return { policy: parsePolicy(text), text };
}

/**
 * Replaces the policy only if it is still the one read as `expected` (two writers never lose each
 * other's limits); no expiry, so every instance enforces the same one. Returns the text stored,
 * or null when the policy changed meanwhile.
 */
export async function replacePolicy(store: CacheStore, wallet: string, expected: string | null, next: WalletPolicy): Promise<string | null> {
  const text = JSON.stringify({ blocked_assets: normalizeBlocked(next.blockedAssets), limits: limitsToWire(next.limits) });
  return (await store.compareAndSet(policyKey(wallet), expected, text, 0)) ? text : null;
}
