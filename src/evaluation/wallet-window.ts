// The per-wallet evaluation window: counts this evaluation, and lists the window's hits when it weighs in.
import type { RateLimits } from '../config.js';
import { THRESHOLDS } from '../risk/weights.js';
import type { CacheStore } from '../store/cache-store.js';
import { provenWindowKey, walletWindowKey } from '../store/keys.js';

export interface WalletWindow {
  allowed: boolean;
  count: number;
  retryAfterMs: number;
  /** The hits inside the window, only when it is near its limit (the engine's RATE_WINDOW_NEAR_LIMIT). */
  hitsMs?: number[];
}

/**
 * ARCHITECTURE.md "Proven callers keep their window". An unproven call (free, demo, MCP: any wallet
 * string) is limited by the wallet's shared window, the specification's. A proven call (a bearer
 * token for the wallet, its own payment) is limited by a window of its own, which unproven calls
 * cannot fill, and is also counted in the shared one (never refused there, and at most up to twice
 * the limit, so the list stays bounded), so unproven calls naming the wallet see the wallet's own use.
 * The engine's window signal reads the window that limited the call: a proven caller's score
 * counts only evaluations it could have made.
 *
 * One store round trip in the common case (a proven call's two hits go out together); a second read
 * only near the limit, where the engine needs the hits to say when the window stops weighing in
 * (ARCHITECTURE.md "Counterfactuals").
 */
export function countEvaluation(
  deps: { store: CacheStore; limits: RateLimits; now: () => number },
  wallet: string,
  limit: number,
  proven: boolean,
): WalletWindow | Promise<WalletWindow> {
  // Limits off: nothing to count, and no store to wait for (evaluate-trade.ts awaits only a promise).
  if (!deps.limits.enabled) return UNLIMITED;
  return countInWindows(deps, wallet, limit, proven);
}

const UNLIMITED: WalletWindow = Object.freeze({ allowed: true, count: 0, retryAfterMs: 0 });

async function countInWindows(
  deps: { store: CacheStore; limits: RateLimits; now: () => number },
  wallet: string,
  limit: number,
  proven: boolean,
): Promise<WalletWindow> {
  const nowMs = deps.now();
  const { windowMs } = deps.limits;
  const shared = walletWindowKey(wallet);
  const key = proven ? provenWindowKey(wallet) : shared;
  const [hit] = await Promise.all([
    deps.store.hitWindow(key, windowMs, limit, nowMs),
    proven ? deps.store.hitWindow(shared, windowMs, 2 * limit, nowMs) : null,
  ]);
  if (!hit.allowed || hit.count < THRESHOLDS.windowShare * limit) return hit;
  return { ...hit, hitsMs: await deps.store.windowHits(key, windowMs, nowMs) };
}
