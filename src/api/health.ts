// GET /healthz: liveness plus a reachable cache store, answered fast.
import { PATHS } from '../catalogue/published-facts.js';
import { errorBody } from '../catalogue/errors.js';
import { json } from '../http/responses.js';
import type { Route } from '../http/types.js';
import type { CacheStore } from '../store/cache-store.js';

const PING_TIMEOUT_MS = 500;

export function healthRoutes(store: CacheStore): Route[] {
  return [{ method: 'get', pattern: PATHS.health, handler: () => check(store) }];
}

async function check(store: CacheStore) {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${PING_TIMEOUT_MS} ms`)), PING_TIMEOUT_MS);
  });
  try {
    await Promise.race([store.ping(), timeout]);
    return json(200, { status: 'ok', store: 'reachable' });
  } catch {
    // Liveness is polled often: the code says what failed, without the store's error text.
    return json(503, { status: 'unavailable', store: 'unreachable', ...errorBody('store_unavailable') });
  } finally {
    clearTimeout(timer);
  }
}
