// The per-wallet evaluation window: counts this evaluation, and lists the window's hits when it weighs in.
import type { RateLimits } from '../config.js';
import { THRESHOLDS } from '../risk/weights.js';
import type { CacheStore } from '../store/cache-store.js';
import { walletWindowKey } from '../store/keys.js';

export interface WalletWindow {
  allowed: boolean;
  count: number;
  retryAfterMs: number;
  /** The hits inside the window, only when it is near its limit (the engine's RATE_WINDOW_NEAR_LIMIT). */
  hitsMs?: number[];
}

/**
 * One store round trip in the common case; a second read only near the limit, where the engine
 * needs the hits to say when the window stops weighing in (ARCHITECTURE.md "Counterfactuals").
 */
export async function countEvaluation(deps: { store: CacheStore; limits: RateLimits; now: () => number }, wallet: string, limit: number): Promise<WalletWindow> {
  if (!deps.limits.enabled) return { allowed: true, count: 0, retryAfterMs: 0 };
  const nowMs = deps.now();
  const key = walletWindowKey(wallet);
  const hit = await deps.store.hitWindow(key, deps.limits.windowMs, limit, nowMs);
  if (!hit.allowed || hit.count < THRESHOLDS.windowShare * limit) return hit;
  return { ...hit, hitsMs: await deps.store.windowHits(key, deps.limits.windowMs, nowMs) };
}
