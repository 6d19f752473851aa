// Builds the running service from a configuration: stores, registry, pool, routes, edge.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Address } from 'viem';
import { analyzeRoutes } from '../channels/rest/analyze.js';
import { authRoutes } from '../channels/rest/auth.js';
import { mcpOnDemand } from '../channels/mcp/on-demand.js';
import { a2aChannel } from '../channels/a2a/channel.js';
import { policyRoutes } from '../channels/rest/policy.js';
import { fleetRoutes } from '../channels/rest/fleet.js';
import { Delegations } from '../auth/delegations.js';
import { simulateBalanceRoutes } from '../channels/rest/simulate-balance.js';
import { tokenSafetyRoutes } from '../channels/rest/token-safety.js';
import type { McpToolDeps } from '../channels/mcp/tool-handlers.js';
import { AccessTokens } from '../auth/access-tokens.js';
import { loadJwtSecret } from '../auth/jwt-secret.js';
import { SignIn } from '../auth/sign-in.js';
import { attachChain, type ChainContext } from './attach-chain.js';
import { attachPaidChannel, type PaidChannel } from './paid-channel.js';
import { operationsRoutes } from '../channels/rest/operations.js';
import { LatencyBook } from '../observability/latency-book.js';
import { Metrics } from '../observability/metrics.js';
import { x402Routes } from '../channels/rest/x402-analyze.js';
import { chainFacts, type ChainFacts } from './fact-sources.js';
import { ChainHoldingsReader } from '../facts/chain/holdings.js';
import { assetRoutes } from '../channels/rest/assets.js';
import { auditRoutes } from '../channels/rest/audit.js';
import { auditProofRoutes } from '../channels/rest/audit-proofs.js';
import { AuditTree } from '../audit/proof/audit-tree.js';
import { PartitionedTree } from '../audit/proof/partitioned-tree.js';
import type { CheckpointSigner, PublishedKey } from '../audit/proof/checkpoint.js';
import { selectedBackend } from '../audit/backends.js';
import { markStore, matchStore, saveEpoch, settleEpoch, withEpochTokens, type DataDirEpoch } from './data-dir-epoch.js';
import { GeneratedKeys } from './generated-keys.js';
import { completeHandover, planHandover, type HandoverPlan } from './epoch-handover.js';
import { lockDataDir } from './data-dir-lock.js';
import { OpenWhenRoom } from './open-when-room.js';
import { waitingBackend } from './waiting-audit-log.js';
import { WaitingStore } from './waiting-store.js';
import type { OpenAuditBackend } from '../audit/proof/audit-backend.js';
import { loadCheckpointSigner } from '../audit/proof/signing-key.js';
import { documentRoutes } from '../channels/rest/documents.js';
import { healthRoutes } from '../channels/rest/health.js';
import { statusRoutes, type StatusSources } from '../channels/rest/status.js';
import { guardStoreRoutes } from '../channels/rest/store-guard.js';
import { chainHealth } from './chain-status.js';
import { rootRoutes } from '../channels/rest/root.js';
import { permitSignerDocument, permitSignerRoutes, type PublishedPermits } from '../channels/rest/permit-signer.js';
import { loadPermitSigner } from '../evaluation/permits/signer-key.js';
import { permitsFor } from './permit-setup.js';
import { AuditVerifier } from '../audit/verify/audit-verifier.js';
import type { Config } from '../config.js';
import type { EvaluationDeps } from '../evaluation/evaluate-trade.js';
import { IdempotencyCache } from '../evaluation/idempotency.js';
import { ScoreBatcher } from '../evaluation/score-batcher.js';
import { startEdge, type Observation } from '../http/server.js';
import type { PlainRequest, Route } from '../http/types.js';
import { RateLimiter } from '../http/rate-limiter.js';
import type { Registry } from '../facts/registry/registry.js';
import type { CacheStore } from '../store/cache-store.js';
import { LmdbStore } from '../store/lmdb-store.js';
import { MemoryStore } from '../store/memory-store.js';
import { RedisStore } from '../store/redis-store.js';
import { redisTarget } from '../store/redis-connection.js';
import { GuardedStore } from '../store/store-unavailable.js';
import { SERVICE, VERSIONS } from '../catalogue/published-facts.js';

export interface Service {
  port: number;
  config: Readonly<Config>;
  registry: Registry;
  /** The chain the facts come from; `devnet` is set when the embedded devnet runs. */
  chain: ChainContext;
  /** The cache store, exposed so operators' tools and tests can read and plant facts. */
  store: CacheStore;
  /** The routes the edge serves: plain request in, plain response out, so handlers run without a socket too. */
  routes: readonly Route[];
  /** Stops listening, drains the audit log and releases the pool, stores and devnet. */
  close(): Promise<void>;
}

import type { Logger } from '../catalogue/failures.js';
export type { Logger };

/** For tests: a fixed clock makes market hours, timestamps and token expiry deterministic. */
export interface ServiceOverrides {
  now?: () => number;
  /** Each answered request (npm start: one pino JSON line on stderr). */
  requestLog?: (observation: Observation) => void;
  /** Log lines dropped because stderr's reader lagged (npm start). */
  logDrops?: () => number;
}

/** Everything started so far, closed in reverse order on stop or on a failed start. */
class Closers {
  private readonly steps: (() => unknown)[] = [];

  add<T>(resource: T, close: (resource: T) => unknown): T {
    this.steps.push(() => close(resource));
    return resource;
  }

  async closeAll(): Promise<void> {
    for (const step of this.steps.splice(0).reverse()) await Promise.resolve(step()).catch(() => undefined);
  }
}

/** How long a stop waits for requests already taken (a paid one may wait seconds on settlement). */
const STOP_GRACE_MS = 10_000;

export async function startService(config: Readonly<Config>, log: Logger, overrides: ServiceOverrides = {}): Promise<Service> {
  const now = overrides.now ?? Date.now;
  const closers = new Closers();
  await mkdir(config.dataDir, { recursive: true });
  try {
    // First: nothing under DATA_DIR is written (keys, epoch.json, the log, the store) by a second service (ARCHITECTURE.md "One writer per DATA_DIR").
    closers.add(lockDataDir(config.dataDir), (lock) => lock.release());
    // Generated keys are held in memory until the opening step below writes them, before anything is signed
    // (ARCHITECTURE.md "A full disk at start"); the routes are built with them.
    const keys = new GeneratedKeys(config.dataDir);
    const permitSigner = await loadPermitSigner(config.permits.signerKey, keys.kept);
    const signer = await loadCheckpointSigner(config.auditSigningKey, keys.kept);
    const jwtSecret = await loadJwtSecret(config.jwtSecret, keys.kept);
    const chain = closers.add(await attachChain(config, log, permitSigner.address), (c) => c.close());
    const permits = permitsFor(config, chain, permitSigner);
    // Before any backend opens, so a start with other settings than the data's writes nothing (ARCHITECTURE.md "DATA_DIR epoch").
    let handover: HandoverPlan | undefined;
    const settled = await settleEpoch(config, now, async (next) => void (handover = await planHandover(config, next)));
    const { epoch } = settled;
    // New chains begin with where the old ones ended, written when the log first opens (ARCHITECTURE.md "DATA_DIR epoch").
    const pending: PendingWrites = { plan: handover ?? await planHandover(config, epoch), keys, epochUnsaved: settled.unsaved };
    // The audit backend is chosen here once; the log, its checkpoints, its store state and its status come from it. It opens with the
    // store, their epoch match and the proof tree as one step, after a first start's keys and epoch.json are written, which on a
    // full disk waits for room while the service listens (ARCHITECTURE.md "A full disk at start").
    const opening = closers.add(await OpenWhenRoom.start('the audit log and the store under DATA_DIR',
      () => openData(config, pending, signer, log, now), config.dataDir, log), (o) => o.close());
    const opened = () => opening.current();
    const backend = opened()?.backend ?? waitingBackend({ backend: () => opened()?.backend ?? null, problem: () => opening.problem() },
      selectedBackend(config).name, config.auditFsync, config.auditPartitions);
    const audit = backend.log;
    const store = opened()?.store ?? new WaitingStore({ store: () => opened()?.store ?? null, problem: () => opening.problem() });
    const proofs: AuditProofs = { key: signer.published, get tree() { return opened()?.tree ?? null; } };
    const scorer = closers.add(new ScoreBatcher(config.workers), (s) => s.close());
    const verifier = closers.add(new AuditVerifier(audit, config.workers, backend.partitions?.chains), (v) => v.close());
    const facts = chainFacts(chain, store, now);
    const observed: Observed = {
      metrics: new Metrics({
        audit: () => audit.stats, scoringQueue: () => scorer.queued, verifications: () => verifier.runs, logDrops: overrides.logDrops ?? (() => 0),
        threads: () => ({ ...backend.threads(), ...(proofs.tree ? { audit_tree: proofs.tree.threadBusySeconds() } : {}) }),
      }, now),
      latency: new LatencyBook(now),
      scoring: scorer,
      startedAt: now(),
    };
    const evaluation: EvaluationDeps = {
      registry: chain.registry,
      prices: facts.prices,
      dailyPnl: facts.dailyPnl,
      venue: facts.venue,
      store,
      audit,
      scorer,
      limits: config.rateLimits,
      now,
      log,
      storeState: withEpochTokens(backend.storeState, () => opened()?.epoch ?? epoch),
      metrics: observed.metrics,
      permits: permits.settings,
    };
    const site = new PublicSite(config);
    const routes = await buildRoutes(config, chain, evaluation, backend, verifier, proofs, closers, facts, site, observed, permits, jwtSecret);
    // Listen only once every scoring thread has loaded the engine (src/threads/thread-start.ts).
    await scorer.started();
    // Closed first: it stops taking requests and waits for the ones it took, so scoring, the audit tree's
    // last checkpoint and the audit log close under no request (src/http/server.ts RunningEdge.stop).
    const edge = closers.add(await startEdge(routes, edgeOptions(config, log, observed, overrides.requestLog)), (e) => e.stop(STOP_GRACE_MS));
    site.listening(edge.port);
    let closing: Promise<void> | null = null;
    const close = () => (closing ??= closers.closeAll());
    return { port: edge.port, config, registry: chain.registry, chain, store, routes, close };
  } catch (error) {
    await closers.closeAll();
    throw error;
  }
}

/** What the service measures about itself: Prometheus metrics, latency histograms, the scoring pool, uptime. */
interface Observed {
  metrics: Metrics;
  latency: LatencyBook;
  scoring: ScoreBatcher;
  startedAt: number;
}

function edgeOptions(config: Readonly<Config>, log: Logger, observed: Observed, requestLog?: (observation: Observation) => void) {
  return {
    host: config.host,
    port: config.port,
    maxBodyBytes: config.maxBodyBytes,
    corsOrigins: config.corsOrigins,
    onHandlerError: (error: unknown, request: PlainRequest) =>
      log(`error: ${request.method} ${request.path}: ${(error as Error).stack ?? error}`, 'error'),
    observe: (o: Observation) => {
      observed.metrics.request(o.route, o.method, o.status, o.ms);
      observed.latency.record(o.method, o.route, o.ms);
      requestLog?.(o);
    },
  };
}

async function buildRoutes(
  config: Readonly<Config>, chain: ChainContext, evaluation: EvaluationDeps, backend: OpenAuditBackend, verifier: AuditVerifier, proofs: AuditProofs,
  closers: Closers, facts: ChainFacts, site: PublicSite, observed: Observed, permits: PublishedPermits, jwtSecret: Uint8Array,
): Promise<Route[]> {
  const { store, now, log } = evaluation;
  const limiter = new RateLimiter(store, config.rateLimits, now);
  const analyze = { evaluation, idempotency: new IdempotencyCache(store, config.idempotencyTtlMs), limiter };
  const tokens = new AccessTokens(jwtSecret, store, now);
  const token = chain.registry.serviceToken;
  const holdings = chain.reads && token ? new ChainHoldingsReader(chain.reads, { address: token.address as Address, decimals: token.decimals }) : null;
  const signIn = new SignIn(store, signInSettings(config, chain.registry.chainId), chain.client, now);
  const paidChannel = closers.add(await attachPaidChannel(config, chain, analyze, store, () => site.url, log, observed.metrics), (p) => p.close());
  if (paidChannel.off) log(`x402: paid evaluation is off: ${paidChannel.off}`);
  const mcp: McpToolDeps = {
    entry: analyze,
    registry: chain.registry,
    paid: paidChannel.paid,
    safety: facts.safety,
    balances: facts.balances,
    verifier,
    log,
  };
  const identity = { name: SERVICE.name, version: VERSIONS.service };
  const mcpChannel = closers.add(mcpOnDemand({ tools: mcp, identity, limiter, limits: config.mcpSessions, now }), (channel) => channel.close());
  return [
    ...rootRoutes({ chainId: chain.registry.chainId, store: config.store, auditKey: proofs.key, permitSigner: permitSignerDocument(permits) }),
    ...permitSignerRoutes(permits),
    ...healthRoutes(store, evaluation.audit),
    ...statusRoutes(statusSources(config, chain, evaluation, backend, facts, observed, paidChannel, proofs)),
    ...operationsRoutes({ metrics: observed.metrics, latency: observed.latency, feeds: facts.feeds, adminToken: config.adminToken, now, log }),
    ...assetRoutes(chain.registry),
    // Sign-in and bearer routes answer 503 store_lost_state while the shared store cannot be trusted.
    ...guardStoreRoutes(evaluation.storeState!, [
      ...analyzeRoutes(analyze, { tokens, holdings }),
      ...x402Routes(paidChannel),
      ...authRoutes({ tokens, signIn, holdings, limiter, log }),
      ...policyRoutes({ tokens, holdings, store, log, audit: evaluation.audit, registry: chain.registry }),
      ...fleetRoutes({ tokens, delegations: new Delegations(store, now), holdings, store, audit: evaluation.audit, registry: chain.registry, limiter, now, log }),
    ]),
    ...tokenSafetyRoutes({ checker: facts.safety, limiter, log }),
    ...simulateBalanceRoutes(facts.balances, log),
    ...auditRoutes({ verifier, limiter, log }),
    ...auditProofRoutes({ get tree() { return proofs.tree; }, key: proofs.key, limiter, log }),
    ...mcpChannel.routes,
    ...a2aChannel({ entry: analyze, registry: chain.registry, safety: facts.safety, log }, limiter, () => site.url, now),
    ...documentRoutes(config, () => site.url, paidChannel),
  ];
}

function statusSources(
  config: Readonly<Config>, chain: ChainContext, evaluation: EvaluationDeps, backend: OpenAuditBackend, facts: ChainFacts, observed: Observed,
  paid: PaidChannel, proofs: AuditProofs,
): StatusSources {
  const { audit, store, now } = evaluation;
  return {
    service: { version: VERSIONS.service, startedAt: observed.startedAt },
    store: { kind: config.store, cache: store, state: evaluation.storeState! },
    audit: { ...backend.status, head: () => audit.head(),
      readiness: () => audit.readiness(),
      proofs: () => proofs.tree?.status() ?? null,
    },
    chain: () => chainHealth(chain, now()),
    feeds: facts.feeds,
    staleOnPurpose: chain.devnet?.staleFeeds ?? [],
    scoring: { threads: observed.scoring.threadCount, queued: () => observed.scoring.queued },
    facilitator: async () => {
      if (!paid.paid) return { status: 'ok', enabled: false, note: paid.off ?? 'paid evaluation is off' };
      await paid.paid.facilitator.supported();
      return { status: 'ok', enabled: true };
    },
    traffic: () => Object.fromEntries(Object.entries(observed.latency.summaries())
      .filter(([, windows]) => windows['1m'].count > 0)
      .map(([route, windows]) => {
        const { count, p50_ms, p99_ms } = windows['1m'];
        return [route, { count, p50_ms, p99_ms }];
      })),
    now,
  };
}

/**
 * Where clients reach the service: PUBLIC_BASE_URL, else the host and the port the edge
 * listens on, which with PORT=0 is known only once it listens (payment challenges name it).
 */
class PublicSite {
  private port: number;

  constructor(private readonly config: Readonly<Config>) {
    this.port = config.port;
  }

  listening(port: number): void {
    this.port = port;
  }

  get url(): string {
    return publicBase({ ...this.config, port: this.port });
  }
}

function publicBase(config: Readonly<Config>): string {
  return (config.publicBaseUrl ?? `http://${config.host}:${config.port}`).replace(/\/$/, '');
}

/** SIWE binds messages to the service's authority: PUBLIC_BASE_URL when set, else host:port. */
function signInSettings(config: Readonly<Config>, chainId: number) {
  const base = new URL(publicBase(config));
  return { domain: base.host, uri: base.origin, chainId };
}

async function openStore(config: Readonly<Config>, now: () => number): Promise<CacheStore> {
  // Redis failures are marked as the store's, so routes answer 503 store_unavailable; LMDB marks its own; memory cannot fail.
  // Memory and LMDB TTLs run on the service's clock; Redis TTLs run on Redis's own.
  const redis = redisTarget(config);
  if (config.store === 'redis' && redis) return new GuardedStore(await RedisStore.connect(redis));
  // On disk beside the audit log, so what users set survives a restart (ARCHITECTURE.md "Embedded store").
  if (config.store === 'lmdb') return LmdbStore.openChecked(join(config.dataDir, 'store'), now);
  return new MemoryStore(now);
}

/** The signing key is always loaded (it is published); the tree only when a checkpoint cadence is set, and once the log is open. */
interface AuditProofs {
  key: PublishedKey;
  readonly tree: AuditTree | PartitionedTree | null;
}

/** What is kept under DATA_DIR (or beside it, on Redis) and opened as one step: see openData. */
interface DataParts {
  backend: OpenAuditBackend;
  store: CacheStore;
  tree: AuditTree | PartitionedTree | null;
  /** The epoch once the store's mark matched the log (a new one when DATA_DIR_NEW_EPOCH accepted a loss). */
  epoch: DataDirEpoch;
  close(): Promise<void>;
}

/** What the opening step still has to write before it opens anything: a first start's keys and epoch, a handover. */
interface PendingWrites {
  plan: HandoverPlan;
  keys: GeneratedKeys;
  epochUnsaved: boolean;
}

/**
 * Writes a first start's generated keys and epoch.json, then opens the audit backend, the store, their epoch match
 * and the proof tree; on a failure closes what it opened, so a start on a full disk can run it again (open-when-room.ts).
 * Nothing signs before this step opens, so a key is written before its first signature. Closed in reverse: the tree,
 * the store's mark of the head seq of a clean stop, the store, the log.
 */
async function openData(
  config: Readonly<Config>, pending: PendingWrites, signer: CheckpointSigner, log: Logger, now: () => number,
): Promise<DataParts> {
  await pending.keys.write();
  if (pending.epochUnsaved) await saveEpoch(config.dataDir, pending.plan.epoch);
  pending.epochUnsaved = false;
  const parts = new Closers();
  try {
    const backend = parts.add(await selectedBackend(config).open(config, { log, now }), (b) => b.log.close());
    // Before any verdict; once written, a retry after a full disk does not write the handover again.
    const epoch = await completeHandover(config, pending.plan, backend.log, now, log);
    pending.plan = { epoch, handover: null, layout: null };
    // Under the DATA_DIR lock, which makes this the only process on the store: the LMDB store's check-and-set relies on it.
    const store = parts.add(await openStore(config, now), (s) => s.close());
    const auditHeadSeq = async () => (await backend.log.head()).seq;
    const matched = await matchStore(config, epoch, store, auditHeadSeq, now);
    if (config.store === 'lmdb') parts.add(store, async (s) => markStore(s, matched.id, await auditHeadSeq()));
    const tree = parts.add(await openAuditTree(config, backend, signer, log, now), (t) => t?.close());
    return { backend, store, tree, epoch: matched, close: () => parts.closeAll() };
  } catch (error) {
    await parts.closeAll();
    throw error;
  }
}

async function openAuditTree(
  config: Readonly<Config>, backend: OpenAuditBackend, signer: CheckpointSigner, log: Logger, now: () => number,
): Promise<AuditTree | PartitionedTree | null> {
  const { records, seconds } = config.auditCheckpoints;
  if (records === 0 && seconds === 0) return null;
  const cadence = { everyRecords: records, everySeconds: seconds, now, log };
  if (backend.partitions) {
    // K chains, one tree each, one checkpoint over them (ARCHITECTURE.md "Partitioned audit chains").
    const { chains } = backend.partitions;
    const tree = await PartitionedTree.open(chains, await backend.partitions.openCheckpoints(signer.published), signer, cadence);
    chains.forEach((chain, p) => (chain.onAppended = (record) => tree.observe(p, record)));
    return tree;
  }
  const store = await backend.openCheckpoints(signer.published);
  const tree = await AuditTree.open(backend.log, store, signer, cadence);
  backend.log.onAppended = (record) => tree.observe(record);
  return tree;
}
