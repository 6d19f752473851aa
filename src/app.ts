// Builds the running service from a configuration: stores, registry, pool, routes, edge.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { analyzeRoutes } from './api/analyze.js';
import { assetRoutes } from './api/assets.js';
import { documentRoutes } from './api/documents.js';
import { healthRoutes } from './api/health.js';
import { rootRoutes } from './api/root.js';
import type { AuditLog } from './audit/audit-log.js';
import { FileAuditLog } from './audit/file-audit-log.js';
import { RedisAuditLog } from './audit/redis-audit-log.js';
import { initSha256 } from './audit/sha256.js';
import type { Config } from './config.js';
import type { EvaluationDeps } from './evaluation/evaluate-trade.js';
import { IdempotencyCache } from './evaluation/idempotency.js';
import { ScoreBatcher } from './evaluation/score-batcher.js';
import { startEdge, type RunningEdge } from './http/server.js';
import type { Route } from './http/types.js';
import { RateLimiter } from './limits/rate-limiter.js';
import { ChainedPriceProvider, DefaultPriceProvider } from './prices/price-provider.js';
import { loadRegistryFile, type Registry } from './registry/registry.js';
import type { CacheStore } from './store/cache-store.js';
import { MemoryStore } from './store/memory-store.js';
import { RedisStore } from './store/redis-store.js';
import { SERVICE_NAME, SERVICE_VERSION } from './version.js';

export interface Service {
  port: number;
  config: Readonly<Config>;
  registry: Registry;
  /** The cache store, exposed so operators' tools and tests can read and plant facts. */
  store: CacheStore;
  /** Stops listening, drains the audit log and releases the pool and stores. */
  close(): Promise<void>;
}

export type Logger = (line: string) => void;

/** For tests: a fixed clock makes market hours and timestamps deterministic. */
export interface ServiceOverrides {
  now?: () => number;
}

const SAMPLE_REGISTRY = new URL('../../registry/sample-registry.json', import.meta.url);

export async function startService(config: Readonly<Config>, log: Logger, overrides: ServiceOverrides = {}): Promise<Service> {
  await initSha256();
  const registry = await loadRegistryFile(config.registryFile ?? SAMPLE_REGISTRY.pathname);
  const store = await openStore(config);
  const now = overrides.now ?? Date.now;
  const audit = await openAudit(config, log, now);
  const scorer = new ScoreBatcher(config.workers);
  const evaluation: EvaluationDeps = {
    registry,
    prices: new ChainedPriceProvider([new DefaultPriceProvider()]),
    store,
    audit,
    scorer,
    limits: config.rateLimits,
    now,
  };
  const routes = buildRoutes(config, evaluation);
  let edge: RunningEdge;
  try {
    edge = await startEdge(routes, {
      host: config.host,
      port: config.port,
      maxBodyBytes: config.maxBodyBytes,
      onHandlerError: (error, request) => log(`error: ${request.method} ${request.path}: ${(error as Error).stack ?? error}`),
    });
  } catch (error) {
    await Promise.allSettled([scorer.close(), audit.close(), store.close()]);
    throw error;
  }
  return { port: edge.port, config, registry, store, close: closer(edge, scorer, audit, store) };
}

function buildRoutes(config: Readonly<Config>, evaluation: EvaluationDeps): Route[] {
  const limiter = new RateLimiter(evaluation.store, config.rateLimits, evaluation.now);
  const idempotency = new IdempotencyCache(evaluation.store, config.idempotencyTtlMs);
  return [
    ...rootRoutes({
      name: SERVICE_NAME,
      version: SERVICE_VERSION,
      chainId: evaluation.registry.chainId,
      store: config.redisUrl ? 'redis' : 'memory',
    }),
    ...healthRoutes(evaluation.store),
    ...assetRoutes(evaluation.registry),
    ...analyzeRoutes({ evaluation, idempotency, limiter }),
    ...documentRoutes(config),
  ];
}

async function openStore(config: Readonly<Config>): Promise<CacheStore> {
  return config.redisUrl ? RedisStore.connect(config.redisUrl) : new MemoryStore();
}

async function openAudit(config: Readonly<Config>, log: Logger, now: () => number): Promise<AuditLog> {
  if (config.auditStore === 'redis' && config.redisUrl) return RedisAuditLog.connect(config.redisUrl, { now });
  const dir = join(config.dataDir, 'audit');
  await mkdir(dir, { recursive: true });
  const audit = await FileAuditLog.open(dir, { fsync: config.auditFsync, now });
  const report = audit.openReport;
  if (report.truncatedBytes > 0) {
    log(`audit: cut a torn last record (${report.truncatedBytes} bytes: ${report.reason}); ${report.records} records intact`);
  }
  if (report.suspectLines > 0) log(`audit: ${report.suspectLines} damaged records inside the log; verify the chain`);
  return audit;
}

function closer(edge: RunningEdge, scorer: ScoreBatcher, audit: AuditLog, store: CacheStore) {
  let closing: Promise<void> | null = null;
  return () => {
    closing ??= (async () => {
      edge.close();
      await scorer.close();
      await audit.close();
      await store.close();
    })();
    return closing;
  };
}
