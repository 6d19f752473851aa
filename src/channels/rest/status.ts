// GET /status.json: the live state of the store, the chain and the audit log, and why when one is not ok.
import { PATHS } from '../../catalogue/published-facts.js';
import { json } from '../../http/responses.js';
import type { Route } from '../../http/types.js';
import type { AuditHead } from '../../audit/record/audit-log.js';
import type { CacheStore } from '../../store/cache-store.js';
import type { StoreState } from '../../store/store-state.js';
import { StoreUnavailableError } from '../../store/store-unavailable.js';
import type { FeedReport, FeedReader } from '../../observability/feed-report.js';

export type ComponentHealth = 'ok' | 'degraded' | 'down';

/** One component's entry; `reason` is present whenever `status` is not ok. */
export interface ComponentStatus {
  status: ComponentHealth;
  reason?: string;
  [detail: string]: unknown;
}

export interface StatusSources {
  service: { version: string; startedAt: number };
  store: { kind: 'lmdb' | 'memory' | 'redis'; cache: CacheStore; state: StoreState };
  audit: {
    kind: string; fsync: string; head: () => Promise<AuditHead>; watch: () => Record<string, unknown> | null;
    /** The log's `readiness()`: why an append cannot be taken now, or null. */
    readiness: () => string | null;
    /** The proof tree and its checkpoints; null when checkpoints are off. */
    proofs: () => Record<string, unknown> | null;
  };
  chain: () => Promise<ComponentStatus>;
  /** Null offline: no feeds to read. */
  feeds: FeedReader | null;
  /** Feeds kept stale on purpose (the embedded devnet's, to show the stale path): reported, not counted against health. */
  staleOnPurpose: readonly string[];
  scoring: { threads: number; queued: () => number };
  /** Whether the x402 facilitator answers; `enabled: false` when the paid channel is off. */
  facilitator: () => Promise<ComponentStatus>;
  /** Requests, p50 and p99 per route over the last minute. */
  traffic: () => Record<string, { count: number; p50_ms: number; p99_ms: number }>;
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

/**
 * Spec: 200 with a machine-readable status; the overall status is the worst component's, and
 * `reasons` lists every component that is not ok with its reason.
 */
async function statusDocument(sources: StatusSources) {
  const feedReport = sources.feeds ? withTimeout(sources.feeds.report(), 'the feeds could not be read') : null;
  const [store, chain, audit, feeds, facilitator] = await Promise.all([
    storeStatus(sources.store), chainStatus(sources.chain), auditStatus(sources.audit), feedsStatus(feedReport, sources.staleOnPurpose),
    facilitatorStatus(sources.facilitator),
  ]);
  const scoring: ComponentStatus = { status: 'ok', threads: sources.scoring.threads, queued: sources.scoring.queued() };
  const components = { store, chain, audit, feeds, scoring, facilitator };
  const worst = Object.values(components).reduce<ComponentHealth>((acc, c) => (RANK[c.status] > RANK[acc] ? c.status : acc), 'ok');
  const reasons = Object.entries(components).filter(([, c]) => c.status !== 'ok').map(([name, c]) => `${name}: ${c.reason ?? c.status}`);
  const now = sources.now();
  return json(200, {
    status: worst, reasons, version: sources.service.version, uptime_seconds: Math.max(0, Math.round((now - sources.service.startedAt) / 1000)),
    checked_at: new Date(now).toISOString(), components, traffic: sources.traffic(),
  });
}

/** Each feed's round and age, stale ones named; the block they were read at. A feed stale on purpose says so and degrades nothing. */
async function feedsStatus(report: Promise<FeedReport> | null, staleOnPurpose: readonly string[]): Promise<ComponentStatus> {
  if (!report) return { status: 'ok', kind: 'offline', feeds: [] };
  try {
    const { block, feeds } = await report;
    const onPurpose = (symbol: string) => staleOnPurpose.includes(symbol);
    const rows = feeds.map((feed) => ({
      symbol: feed.symbol, round_id: feed.round_id, age_seconds: feed.age_seconds, stale: feed.stale,
      ...(onPurpose(feed.symbol) ? { stale_on_purpose: true } : {}), ...(feed.problem ? { problem: feed.problem } : {}),
    }));
    const bad = feeds.filter((feed) => feed.stale !== false && !(feed.stale && onPurpose(feed.symbol))).map((feed) => feed.symbol);
    const base = { block: block.number, feeds: rows };
    return bad.length === 0 ? { status: 'ok', ...base } : { status: 'degraded', reason: `stale or unreadable feeds: ${bad.join(', ')}; those assets fall back to other prices`, ...base };
  } catch (error) {
    return { status: 'down', reason: (error as Error).message, feeds: [] };
  }
}

async function facilitatorStatus(probe: StatusSources['facilitator']): Promise<ComponentStatus> {
  try {
    return await withTimeout(probe(), 'the facilitator did not answer /supported');
  } catch (error) {
    return { status: 'down', enabled: true, reason: (error as Error).message };
  }
}

async function storeStatus({ kind, cache, state }: StatusSources['store']): Promise<ComponentStatus> {
  const problem = state.problem();
  if (problem) return { status: 'down', kind, code: problem.code, reason: problem.detail };
  // A fault the store words for operators (a full disk under LMDB) is the reason; a client's error text stays out.
  let fault: string | null = null;
  const ping = cache.ping().catch((error: unknown) => {
    if (error instanceof StoreUnavailableError && error.fault) fault = error.fault.message;
    throw error;
  });
  try {
    await withTimeout(ping, 'the store did not answer a ping');
    return { status: 'ok', kind };
  } catch (error) {
    return { status: 'down', kind, reason: fault ?? (error as Error).message };
  }
}

async function auditStatus({ kind, fsync, head, watch, readiness, proofs }: StatusSources['audit']): Promise<ComponentStatus> {
  const watched = watch();
  const base: ComponentStatus = watched ? { ...watched, status: watched.status as ComponentHealth, kind } : { status: 'ok', kind };
  // No verdict is recorded while appends fail (a full disk, a replaced file): the log is down, and says why.
  const notReady = readiness();
  if (notReady && base.status !== 'down') Object.assign(base, { status: 'down', reason: notReady });
  base.fsync = fsync;
  const tree = proofs();
  base.proofs = tree;
  // Verdicts are still recorded; only proofs stop, so the log is degraded rather than down.
  if (tree?.fault && base.status === 'ok') Object.assign(base, { status: 'degraded', reason: String(tree.fault) });
  try {
    return { ...base, head: await withTimeout(head(), 'the audit head could not be read') };
  } catch (error) {
    // A watch that already explains the trouble keeps its own reason.
    return base.status === 'ok' ? { ...base, status: 'down', reason: (error as Error).message, head: null } : { ...base, head: null };
  }
}

/** The node's health, with the head the evaluations read at (its number, its age by the service clock, whether the watch vouches for it). */
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
