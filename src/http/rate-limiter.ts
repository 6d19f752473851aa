// Per-IP request windows for public routes; answers 429 with Retry-After when one is full.
import { ipWindowKey } from '../store/keys.js';
import type { RateLimits } from '../config.js';
import { STORE_UNAVAILABLE } from '../catalogue/failures.js';
import { json, tooManyRequests } from './responses.js';
import type { PlainResponse } from './types.js';
import type { CacheStore } from '../store/cache-store.js';

export type IpBucket = keyof RateLimits['ip'];

export class RateLimiter {
  constructor(private readonly store: CacheStore, private readonly limits: RateLimits, private readonly now: () => number) {}

  /**
   * `next()`, unless the IP's window is full (429) or its store is down (503: fail closed). With limits off, `next()` is
   * called at once, without the turn of promises a check makes (issue 41).
   */
  guard(bucket: IpBucket, ip: string, next: () => Promise<PlainResponse>): Promise<PlainResponse> {
    if (!this.limits.enabled) return next();
    return this.checkIp(bucket, ip).then((refused) => refused ?? next());
  }

  /** Null when the request may go on; a 429 (or a 503 when the store is down: fail closed) otherwise. */
  async checkIp(bucket: IpBucket, ip: string): Promise<PlainResponse | null> {
    if (!this.limits.enabled) return null;
    const limit = this.limits.ip[bucket];
    try {
      const hit = await this.store.hitWindow(ipWindowKey(bucket, ip), this.limits.windowMs, limit, this.now());
      return hit.allowed ? null : tooManyRequests(hit.retryAfterMs, limit, this.limits.windowMs);
    } catch {
      return json(503, { detail: 'rate-limit store unavailable; refusing to serve unmetered requests', code: STORE_UNAVAILABLE.code });
    }
  }
}
