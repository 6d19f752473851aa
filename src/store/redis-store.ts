// CacheStore over Redis (ioredis), one node or a cluster, shared by every service instance; fails closed.
import { randomBytes } from 'node:crypto';
import type { RedisOptions } from 'ioredis';
import type { CacheStore, WindowHit } from './cache-store.js';
import { untagged } from './keys.js';
import {
  asTarget, describeTarget, isCluster, openRedis, scrubPassword, whenReady, type RedisClient, type RedisTarget,
} from './redis-connection.js';

/**
 * Client options chosen so a dead Redis makes every call reject fast instead of
 * queueing or hanging, while the client keeps reconnecting in the background.
 */
export const REDIS_CLIENT_OPTIONS: RedisOptions = {
  // Commands issued while disconnected reject at once. A queued command that
  // timed out for its caller would otherwise still run after reconnecting
  // (a trade refused to the agent, yet its window hit recorded).
  enableOfflineQueue: false,
  // In-flight commands are rejected on the first connection loss, never resent.
  maxRetriesPerRequest: 0,
  autoResendUnfulfilledCommands: false,
  // A stalled-but-connected server still answers nothing within a second.
  commandTimeout: 1_000,
  connectTimeout: 2_000,
  // ioredis arms this timer even when the socket is already closed (closing while
  // Redis is down), and it holds the process open; loopback/LAN FINs take far less.
  disconnectTimeout: 500,
  // Reconnect forever (never give up), quickly: downtime means refused trades.
  retryStrategy: (attempt: number) => Math.min(attempt * 100, 1_000),
};

/** How long RedisStore.connect waits for the first ready connection. */
export const CONNECT_TIMEOUT_MS = 3_000;

/** Optional hooks; errors are swallowed by default because every call already rejects. */
export interface RedisStoreOptions {
  /** Sees each connection error (fires repeatedly while Redis is down). */
  onError?: (error: Error) => void;
}

// compareAndSet: ARGV = expectAbsent ('1'|'0'), expected, next, ttlMs.
const COMPARE_AND_SET_LUA = `
local current = redis.call('GET', KEYS[1])
if ARGV[1] == '1' then
  if current then return 0 end
elseif current ~= ARGV[2] then
  return 0
end
if tonumber(ARGV[4]) > 0 then
  redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
else
  redis.call('SET', KEYS[1], ARGV[3])
end
return 1`;

// hitWindow: ARGV = nowMs, windowMs, limit, unique member. Returns {allowed, count, retryAfterMs}.
const HIT_WINDOW_LUA = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
if count < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[1], math.ceil(window))
  return {1, count + 1, 0}
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local retry = window
if oldest[2] then retry = math.ceil(tonumber(oldest[2]) + window - now) end
if retry < 1 then retry = 1 end
return {0, count, retry}`;

/** The Lua-backed commands registered with defineCommand (EVALSHA, EVAL on NOSCRIPT). */
interface ScriptedRedis {
  tgCompareAndSet(key: string, expectAbsent: string, expected: string, next: string, ttlMs: string): Promise<number>;
  tgHitWindow(key: string, nowMs: string, windowMs: string, limit: string, member: string): Promise<number[]>;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Redis-backed store. Prefer `await RedisStore.connect(url)`: the constructor starts
 * connecting but, with no offline queue, calls made before the first connection is
 * ready reject.
 */
export class RedisStore implements CacheStore {
  private readonly redis: RedisClient & ScriptedRedis;
  /** The stored name of a key: a cluster keeps its hash tag; one node keeps the name it used before clusters (keys.ts). */
  private readonly name: (key: string) => string;
  // Members must be unique across processes sharing the key, not just within one.
  private readonly memberPrefix = randomBytes(6).toString('hex');
  private memberCounter = 0;

  constructor(
    target: string | RedisTarget,
    prefix = 'tg:',
    options: RedisStoreOptions = {},
  ) {
    this.redis = openRedis(asTarget(target), REDIS_CLIENT_OPTIONS) as RedisClient & ScriptedRedis;
    this.name = isCluster(this.redis) ? (key) => prefix + key : (key) => prefix + untagged(key);
    // Without a listener ioredis prints every reconnect failure to the console.
    this.redis.on('error', (error: Error) => options.onError?.(error));
    this.redis.defineCommand('tgCompareAndSet', { numberOfKeys: 1, lua: COMPARE_AND_SET_LUA });
    this.redis.defineCommand('tgHitWindow', { numberOfKeys: 1, lua: HIT_WINDOW_LUA });
  }

  /**
   * Resolves with a store once Redis answers; rejects (and closes the client) with a
   * message naming REDIS_URL or REDIS_CLUSTER_NODES, password masked, when it cannot connect in time.
   */
  static async connect(target: string | RedisTarget, prefix = 'tg:', options: RedisStoreOptions = {}): Promise<RedisStore> {
    const where = asTarget(target);
    let store: RedisStore | undefined;
    try {
      store = new RedisStore(where, prefix, options);
      await whenReady(store.redis, CONNECT_TIMEOUT_MS);
      return store;
    } catch (error) {
      store?.redis.disconnect();
      const reason = scrubPassword(errorMessage(error), where);
      throw new Error(`Cannot connect to Redis at ${describeTarget(where)}: ${reason}`);
    }
  }

  async ping(): Promise<void> {
    await this.redis.ping();
  }

  async get(key: string): Promise<string | null> {
    return this.redis.get(this.name(key));
  }

  /**
   * One node: MGET, one command for the evaluation's several flags. A cluster refuses an MGET across
   * slots, so each key is its own GET, all sent at once (one round trip per node they live on).
   */
  async getMany(keys: readonly string[]): Promise<Array<string | null>> {
    if (keys.length === 0) return [];
    if (isCluster(this.redis)) return Promise.all(keys.map((key) => this.get(key)));
    return this.redis.mget(keys.map(this.name));
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    // A plain SET also clears an earlier TTL, matching "ttlMs <= 0 means no expiry".
    if (ttlMs > 0) await this.redis.set(this.name(key), value, 'PX', Math.ceil(ttlMs));
    else await this.redis.set(this.name(key), value);
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    const reply =
      ttlMs > 0
        ? await this.redis.set(this.name(key), value, 'PX', Math.ceil(ttlMs), 'NX')
        : await this.redis.set(this.name(key), value, 'NX');
    return reply === 'OK';
  }

  async compareAndSet(key: string, expected: string | null, next: string, ttlMs: number): Promise<boolean> {
    const ttl = String(ttlMs > 0 ? Math.ceil(ttlMs) : 0);
    const absent = expected === null ? '1' : '0';
    return (await this.redis.tgCompareAndSet(this.name(key), absent, expected ?? '', next, ttl)) === 1;
  }

  async take(key: string): Promise<string | null> {
    return this.redis.getdel(this.name(key));
  }

  async delete(key: string): Promise<void> {
    await this.redis.del(this.name(key));
  }

  async hitWindow(key: string, windowMs: number, limit: number, nowMs: number): Promise<WindowHit> {
    const member = `${nowMs}-${this.memberPrefix}-${this.memberCounter++}`;
    const [allowed, count, retryAfterMs] = await this.redis.tgHitWindow(
      this.name(key),
      String(nowMs),
      String(windowMs),
      String(limit),
      member,
    );
    return { allowed: allowed === 1, count, retryAfterMs };
  }

  async countWindow(key: string, windowMs: number, nowMs: number): Promise<number> {
    return this.redis.zcount(this.name(key), `(${nowMs - windowMs}`, '+inf');
  }

  async windowHits(key: string, windowMs: number, nowMs: number): Promise<number[]> {
    const flat = await this.redis.zrangebyscore(this.name(key), `(${nowMs - windowMs}`, '+inf', 'WITHSCORES');
    const hits: number[] = [];
    for (let index = 1; index < flat.length; index += 2) hits.push(Number(flat[index]));
    return hits;
  }

  async close(): Promise<void> {
    if (this.redis.status === 'ready') {
      try {
        await this.redis.quit();
        return;
      } catch {
        // Connection died mid-quit; fall through to a hard disconnect.
      }
    }
    // Also cancels any pending reconnect timer so nothing keeps the process alive.
    this.redis.disconnect();
  }
}
