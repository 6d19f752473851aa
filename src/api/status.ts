// GET /status.json: the live state of the store, the chain and the audit log, and why when one is not ok.
import { PATHS } from '../catalogue/published-facts.js';
import { json } from '../http/responses.js';
import type { Route } from '../http/types.js';
import type { AuditHead } from '../audit/audit-log.js';
import type { CacheStore } from '../store/cache-store.js';
import type { StoreState } from '../store/store-state.js';

export type ComponentHealth = 'ok' | 'degraded' | 'down';

/** One component's entry; `reason` is present whenever `status` is not ok. */
export interface ComponentStatus {
  status: ComponentHealth;
  reason?: string;
  [detail: string]: unknown;
}

export interface StatusSources {
  store: { kind: 'redis' | 'memory'; cache: CacheStore; state: StoreState };
  audit: { kind: 'file' | 'redis'; head: () => Promise<AuditHead>; watch: () => Record<string, unknown> | null };
  chain: () => Promise<ComponentStatus>;
  now: () => number;
}

/**
 * Each remote read in the document gets this long, so the document is never slower than
 * about this. Reasons name what failed in words; the raw errors (addresses) stay out.
 */
const PROBE_TIMEOUT_MS = 1_000;
const RANK: Record<ComponentHealth, number> = { ok: 0, degraded: 1, down: 2 };

export function statusRoutes(sources: StatusSources): Route[] {
  return [{ method: 'get', pattern: PATHS.status, handler: () => statusDocument(sources) }];
}

/** Spec: 200 with a machine-readable status; the overall status is the worst component's. */
async function statusDocument(sources: StatusSources) {
  const [store, chain, audit] = await Promise.all([storeStatus(sources.store), chainStatus(sources.chain), auditStatus(sources.audit)]);
  const components = { store, chain, audit };
  const worst = Object.values(components).reduce<ComponentHealth>((acc, c) => (RANK[c.status] > RANK[acc] ? c.status : acc), 'ok');
  return json(200, { status: worst, checked_at: new Date(sources.now()).toISOString(), components });
}

async function storeStatus({ kind, cache, state }: StatusSources['store']): Promise<ComponentStatus> {
  const problem = state.problem();
  if (problem) return { status: 'down', kind, code: problem.code, reason: problem.detail };
  try {
    await withTimeout(cache.ping(), 'the store did not answer a ping');
    return { status: 'ok', kind };
  } catch (error) {
    return { status: 'down', kind, reason: (error as Error).message };
  }
}

async function auditStatus({ kind, head, watch }: StatusSources['audit']): Promise<ComponentStatus> {
  const watched = watch();
  const base: ComponentStatus = watched ? { ...watched, status: watched.status as ComponentHealth, kind } : { status: 'ok', kind };
  try {
    return { ...base, head: await withTimeout(head(), 'the audit head could not be read') };
  } catch (error) {
    // A watch that already explains the trouble keeps its own reason.
    return base.status === 'ok' ? { ...base, status: 'down', reason: (error as Error).message, head: null } : { ...base, head: null };
  }
}

async function chainStatus(probe: StatusSources['chain']): Promise<ComponentStatus> {
  try {
    return await withTimeout(probe(), 'the chain status could not be read');
  } catch (error) {
    return { status: 'down', reason: (error as Error).message };
  }
}

function withTimeout<T>(work: Promise<T>, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${message} within ${PROBE_TIMEOUT_MS} ms`)), PROBE_TIMEOUT_MS);
  });
  const failed = work.catch(() => Promise.reject(new Error(message)));
  return Promise.race([failed, timeout]).finally(() => clearTimeout(timer));
}
