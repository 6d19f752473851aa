// GET /healthz: liveness plus a reachable cache store, answered fast; the body says when the audit log takes no appends.
import { PATHS } from '../../catalogue/published-facts.js';
import { errorBody } from '../../catalogue/errors.js';
import { json } from '../../http/responses.js';
import type { Route } from '../../http/types.js';
import type { CacheStore } from '../../store/cache-store.js';
import type { AuditLog } from '../../audit/record/audit-log.js';

const PING_TIMEOUT_MS = 500;

export function healthRoutes(store: CacheStore, audit: Pick<AuditLog, 'readiness'>): Route[] {
  return [{ method: 'get', pattern: PATHS.health, handler: () => check(store, audit) }];
}

async function check(store: CacheStore, audit: Pick<AuditLog, 'readiness'>) {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${PING_TIMEOUT_MS} ms`)), PING_TIMEOUT_MS);
  });
  try {
    await Promise.race([store.ping(), timeout]);
    // Liveness stays 200 (the process answers; a restart would not bring disk space back), but a
    // probe reading the body learns that no verdict can be recorded now, and why.
    const reason = audit.readiness();
    return json(200, reason ? { status: 'degraded', store: 'reachable', reason } : { status: 'ok', store: 'reachable' });
  } catch {
    // Liveness is polled often: the code says what failed, without the store's error text. The audit log's reason is
    // the service's own words, as on a 200: on a full disk at start it names the disk and what frees the service.
    const reason = audit.readiness();
    return json(503, { status: 'unavailable', store: 'unreachable', ...errorBody('store_unavailable'), ...(reason ? { reason } : {}) });
  } finally {
    clearTimeout(timer);
  }
}
