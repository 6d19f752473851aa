// Service configuration: one TypeBox schema over the environment, checked once at boot.
import { Type, type Static } from '@sinclair/typebox';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';

/** Most audit chains AUDIT_PARTITIONS may ask for: each chain's proof tree is a thread of its own (ARCHITECTURE.md "Partitioned audit chains"). */
export const MAX_AUDIT_PARTITIONS = 16;
const Port = Type.Integer({ minimum: 0, maximum: 65535 });
const Count = Type.Integer({ minimum: 1, maximum: 1_000_000 });
const Url = Type.String({ pattern: '^(https?|wss?|redis|rediss)://\\S+$' });
const Address = Type.String({ pattern: '^0x[a-fA-F0-9]{40}$' });

/** Every variable the service reads, with its default. Names are the variable names. */
export const ConfigSchema = Type.Object({
  PORT: Type.Optional(Port),
  HOST: Type.Optional(Type.String({ minLength: 1 })),
  RPC_URL: Type.Optional(Url),
  RPC_WS_URL: Type.Optional(Type.String({ pattern: '^wss?://' })),
  RPC_TIMEOUT_MS: Type.Optional(Type.Integer({ minimum: 100, maximum: 60_000 })),
  REDIS_URL: Type.Optional(Url),
  // Seed nodes of a Redis Cluster, host:port separated by commas (in place of REDIS_URL).
  REDIS_CLUSTER_NODES: Type.Optional(Type.String({ pattern: '^[^\\s,]+:[0-9]{1,5}(\\s*,\\s*[^\\s,]+:[0-9]{1,5})*$' })),
  STORE: Type.Optional(Type.Union([Type.Literal('lmdb'), Type.Literal('memory'), Type.Literal('redis')])),
  DATA_DIR: Type.Optional(Type.String({ minLength: 1 })),
  REGISTRY_FILE: Type.Optional(Type.String({ minLength: 1 })),
  JWT_SECRET: Type.Optional(Type.String({ minLength: 32 })),
  PAY_TO_ADDRESS: Type.Optional(Address),
  FACILITATOR_URL: Type.Optional(Url),
  ADMIN_TOKEN: Type.Optional(Type.String({ minLength: 16 })),
  REQUEST_LOG: Type.Optional(Type.Union([Type.Literal('on'), Type.Literal('off')])),
  // `*`, `none`, or origins (scheme://host[:port]) separated by commas.
  CORS_ORIGINS: Type.Optional(Type.String({ pattern: '^(\\*|none|https?://[^\\s,/]+(\\s*,\\s*https?://[^\\s,/]+)*)$' })),
  PUBLIC_BASE_URL: Type.Optional(Url),
  WORKERS: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })),
  MAX_BODY_BYTES: Type.Optional(Type.Integer({ minimum: 1024, maximum: 16 * 1024 * 1024 })),
  AUDIT_STORE: Type.Optional(Type.Union([Type.Literal('file'), Type.Literal('redis')])),
  AUDIT_FSYNC: Type.Optional(Type.Union([Type.Literal('always'), Type.Literal('batch'), Type.Literal('off')])),
  AUDIT_REPLICA_ACKS: Type.Optional(Type.Integer({ minimum: 0, maximum: 16 })),
  AUDIT_REPLICA_TIMEOUT_MS: Type.Optional(Type.Integer({ minimum: 1, maximum: 60_000 })),
  AUDIT_ABANDON_EPOCH: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  AUDIT_ACCEPT_LOSS: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
  DATA_DIR_NEW_EPOCH: Type.Optional(Type.String({ pattern: '^[0-9a-f-]{36}$' })),
  DATA_DIR_OLD_CHAIN_GONE: Type.Optional(Type.String({ pattern: '^[0-9a-f-]{36}$' })),
  AUDIT_CHECKPOINT_RECORDS: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000_000 })),
  AUDIT_CHECKPOINT_SECONDS: Type.Optional(Type.Integer({ minimum: 0, maximum: 86_400 })),
  AUDIT_SIGNING_KEY: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9+/]{43}=$' })),
  AUDIT_PARTITIONS: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_AUDIT_PARTITIONS })),
  PERMIT_SIGNER_KEY: Type.Optional(Type.String({ pattern: '^0x[0-9a-fA-F]{64}$' })),
  PERMIT_GUARD_ADDRESS: Type.Optional(Address),
  PERMIT_TTL_SECONDS: Type.Optional(Type.Integer({ minimum: 10, maximum: 3600 })),
  IDEMPOTENCY_TTL_SECONDS: Type.Optional(Count),
  RATE_LIMITS: Type.Optional(Type.Union([Type.Literal('on'), Type.Literal('off')])),
  RATE_LIMIT_WINDOW_SECONDS: Type.Optional(Count),
  RATE_LIMIT_WALLET_TIER1: Type.Optional(Count),
  RATE_LIMIT_WALLET_TIER2: Type.Optional(Count),
  RATE_LIMIT_WALLET_TIER3: Type.Optional(Count),
  RATE_LIMIT_IP_FREE: Type.Optional(Count),
  RATE_LIMIT_IP_DEMO: Type.Optional(Count),
  RATE_LIMIT_IP_TOKEN_SAFETY: Type.Optional(Count),
  RATE_LIMIT_IP_AUDIT_LIST: Type.Optional(Count),
  RATE_LIMIT_IP_AUDIT_VERIFY: Type.Optional(Count),
  RATE_LIMIT_IP_MCP: Type.Optional(Count),
  RATE_LIMIT_IP_A2A: Type.Optional(Count),
  RATE_LIMIT_IP_AUTH: Type.Optional(Count),
  MCP_SESSIONS_PER_IP: Type.Optional(Count),
  MCP_SESSIONS_MAX: Type.Optional(Count),
  MCP_SESSION_IDLE_SECONDS: Type.Optional(Count),
});

export type RawConfig = Static<typeof ConfigSchema>;

export interface RateLimits {
  enabled: boolean;
  windowMs: number;
  walletPerTier: Readonly<Record<1 | 2 | 3, number>>;
  ip: Readonly<{ free: number; demo: number; tokenSafety: number; auditList: number; auditVerify: number; mcp: number; a2a: number; auth: number }>;
}

export interface Config {
  port: number;
  host: string;
  rpcUrl: string | null;
  /** The node's WebSocket endpoint for new heads; null polls RPC_URL (ARCHITECTURE.md "Chain facts by block"). */
  rpcWsUrl: string | null;
  /** How long one chain read may take before it fails (the verdict is then an error, never an allow). */
  rpcTimeoutMs: number;
  redisUrl: string | null;
  /** A Redis Cluster's seed nodes (`host:port`), in place of REDIS_URL; store/redis-connection.ts opens either. */
  redisClusterNodes: readonly string[] | null;
  /**
   * The cache store (docs/configuration.md "Stores"): `redis` with REDIS_URL or REDIS_CLUSTER_NODES, else `lmdb` on disk under DATA_DIR;
   * `memory` forgets everything on a restart (benchmarks, throwaway runs).
   */
  store: 'lmdb' | 'memory' | 'redis';
  dataDir: string;
  registryFile: string | null;
  jwtSecret: string | null;
  payToAddress: string | null;
  /** The x402 facilitator; unset on the embedded devnet means the service starts its own on loopback. */
  facilitatorUrl: string | null;
  publicBaseUrl: string | null;
  /** Opens /debug/feeds (X-Admin-Token); unset, the route is disabled. */
  adminToken: string | null;
  /** One JSON log line per answered request (npm start); `off` keeps only events. */
  requestLog: boolean;
  /** Origins whose browser pages may read the answers (CORS): `*` for any, an empty list for none. */
  corsOrigins: '*' | readonly string[];
  workers: number;
  maxBodyBytes: number;
  auditStore: 'file' | 'redis';
  auditFsync: 'always' | 'batch' | 'off';
  /**
   * Durable acknowledgement on Redis (ARCHITECTURE.md "Durable acknowledgement"): a record counts only once
   * `acks` replicas confirmed it within `timeoutMs` (Redis WAIT); 0 answers from the primary alone.
   */
  auditReplicas: Readonly<{ acks: number; timeoutMs: number }>;
  /** An operator's acceptance that this epoch of the Redis audit chain is lost (docs/audit-records.md, "When Redis loses its data"). */
  auditAbandonEpoch: string | null;
  /** The first lost seq of the file log whose loss an operator accepts (ARCHITECTURE.md "Damage is not a torn tail"). */
  auditAcceptLoss: number | null;
  /** The DATA_DIR epoch an operator replaces with a new one: an emptied store or changed audit settings accepted (ARCHITECTURE.md "DATA_DIR epoch"). */
  dataDirNewEpoch: string | null;
  /** The replaced epoch whose chains an operator declares unreadable for good: its handover record says so instead of naming their ends. */
  dataDirOldChainGone: string | null;
  /** Signed checkpoint cadence: every `records` records or `seconds` of traffic (0 turns either off). */
  auditCheckpoints: Readonly<{ records: number; seconds: number }>;
  /** Base64 Ed25519 seed; null: generated once into DATA_DIR. */
  auditSigningKey: string | null;
  /** Audit chains the log is split into by wallet (ARCHITECTURE.md "Partitioned audit chains"); 1 is the single chain. */
  auditPartitions: number;
  /** Trade permits (docs/enforcing-on-chain.md): the signing key (null: generated into DATA_DIR), the guard, the lifetime. */
  permits: Readonly<{ signerKey: string | null; guard: string | null; ttlSeconds: number }>;
  idempotencyTtlMs: number;
  rateLimits: RateLimits;
  /** `max`: open sessions across all clients (each holds an SDK server, about 93 kB). */
  mcpSessions: Readonly<{ perIp: number; max: number; idleMs: number }>;
}

/** A bad environment, with one line per offending variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

// Environment values are strings; coercion is allowed here and only here. Compiled when a configuration
// is first loaded, without the meta-schema check (src/schemas/validator.ts says why; the unit test
// test/unit/schemas/validated-schemas.test.ts checks this schema too).
let validate: ValidateFunction | undefined;

const SECRETS = new Set(['JWT_SECRET', 'ADMIN_TOKEN', 'AUDIT_SIGNING_KEY', 'PERMIT_SIGNER_KEY']);

/** One line per variable: a union of literals reads "must be one of ...", anything else Ajv's first message. */
function describeProblems(errors: ErrorObject[], env: Record<string, unknown>): string[] {
  const byName = new Map<string, string>();
  for (const error of errors) {
    const name = error.instancePath.slice(1).split('/')[0];
    const choices = (ConfigSchema.properties as Record<string, { anyOf?: { const?: unknown }[] }>)[name]?.anyOf;
    const message = choices ? `must be one of ${choices.map((c) => c.const).join(', ')}` : (error.message ?? 'is invalid');
    if (!byName.has(name)) byName.set(name, message);
  }
  return [...byName].map(([name, message]) => {
    const value = SECRETS.has(name) ? '(hidden)' : JSON.stringify(env[name]);
    return `${name}=${value}: ${message}`;
  });
}

/** Reads only the variables the schema names, ignoring empty strings as unset. */
function pickEnvironment(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const name of Object.keys(ConfigSchema.properties)) {
    const value = env[name];
    if (value !== undefined && value !== '') picked[name] = value.trim();
  }
  return picked;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  const raw = pickEnvironment(env);
  const original = { ...raw };
  validate ??= new Ajv({ allErrors: true, coerceTypes: true, validateSchema: false }).compile(ConfigSchema);
  if (!validate(raw)) throw new ConfigError(describeProblems(validate.errors ?? [], original));
  checkRedisChoice(raw as RawConfig);
  // Chains spread over Redis slots; the file log is one file, one chain.
  if (Number(raw.AUDIT_PARTITIONS ?? 1) > 1 && auditStoreOf(raw as RawConfig) !== 'redis') {
    throw new ConfigError([`AUDIT_PARTITIONS=${String(raw.AUDIT_PARTITIONS)}: partitioned audit chains need AUDIT_STORE=redis (the file log keeps one chain)`]);
  }
  return Object.freeze(resolveConfig(raw as RawConfig));
}

/** The variable that names the shared Redis (a cluster's seeds or one server), or null without one. */
function sharedRedis(raw: RawConfig): 'REDIS_CLUSTER_NODES' | 'REDIS_URL' | null {
  return raw.REDIS_CLUSTER_NODES ? 'REDIS_CLUSTER_NODES' : raw.REDIS_URL ? 'REDIS_URL' : null;
}

/** AUDIT_STORE, or its default: Redis beside a shared Redis, else the file log. */
function auditStoreOf(raw: RawConfig): 'file' | 'redis' {
  return raw.AUDIT_STORE ?? (sharedRedis(raw) ? 'redis' : 'file');
}

/** One shared Redis at most, and the stores that need one have one. */
function checkRedisChoice(raw: RawConfig): void {
  if (raw.REDIS_URL && raw.REDIS_CLUSTER_NODES) {
    throw new ConfigError(['REDIS_CLUSTER_NODES and REDIS_URL are both set: the shared store is one Redis or one Redis Cluster; unset one']);
  }
  const redis = sharedRedis(raw);
  if (raw.AUDIT_STORE === 'redis' && !redis) throw new ConfigError(['AUDIT_STORE=redis: needs REDIS_URL or REDIS_CLUSTER_NODES']);
  if (raw.STORE === 'redis' && !redis) throw new ConfigError(['STORE=redis: needs REDIS_URL or REDIS_CLUSTER_NODES']);
  // Instances sharing a Redis must share its revocations and policies: a store of their own would split them.
  if (raw.STORE && raw.STORE !== 'redis' && redis) throw new ConfigError([`STORE=${raw.STORE}: ${redis} is set, and then the store is Redis`]);
}

function resolveConfig(raw: RawConfig): Config {
  return {
    port: raw.PORT ?? 8080,
    host: raw.HOST ?? '127.0.0.1',
    rpcUrl: raw.RPC_URL ?? null,
    rpcWsUrl: raw.RPC_WS_URL ?? null,
    rpcTimeoutMs: raw.RPC_TIMEOUT_MS ?? 2_000,
    redisUrl: raw.REDIS_URL ?? null,
    redisClusterNodes: raw.REDIS_CLUSTER_NODES ? Object.freeze(raw.REDIS_CLUSTER_NODES.split(',').map((node) => node.trim())) : null,
    store: sharedRedis(raw) ? 'redis' : (raw.STORE ?? 'lmdb'),
    dataDir: resolve(raw.DATA_DIR ?? './data'),
    registryFile: raw.REGISTRY_FILE ? resolve(raw.REGISTRY_FILE) : null,
    jwtSecret: raw.JWT_SECRET ?? null,
    payToAddress: raw.PAY_TO_ADDRESS ?? null,
    facilitatorUrl: raw.FACILITATOR_URL ? raw.FACILITATOR_URL.replace(/\/+$/, '') : null,
    publicBaseUrl: raw.PUBLIC_BASE_URL ?? null,
    adminToken: raw.ADMIN_TOKEN ?? null,
    requestLog: raw.REQUEST_LOG !== 'off',
    corsOrigins: corsOrigins(raw.CORS_ORIGINS ?? '*'),
    workers: raw.WORKERS ?? Math.max(1, availableParallelism()),
    maxBodyBytes: raw.MAX_BODY_BYTES ?? 64 * 1024,
    // Instances sharing a Redis share one audit chain unless told otherwise.
    auditStore: auditStoreOf(raw),
    auditFsync: raw.AUDIT_FSYNC ?? 'batch',
    // A cluster has replicas by design, so a verdict waits for one; a single Redis may have none.
    auditReplicas: Object.freeze({
      acks: raw.AUDIT_REPLICA_ACKS ?? (raw.REDIS_CLUSTER_NODES ? 1 : 0),
      timeoutMs: raw.AUDIT_REPLICA_TIMEOUT_MS ?? 1_000,
    }),
    auditAbandonEpoch: raw.AUDIT_ABANDON_EPOCH ?? null,
    auditAcceptLoss: raw.AUDIT_ACCEPT_LOSS ?? null,
    dataDirNewEpoch: raw.DATA_DIR_NEW_EPOCH ?? null,
    dataDirOldChainGone: raw.DATA_DIR_OLD_CHAIN_GONE ?? null,
    // A checkpoint at least every 100,000 records or 10 s of traffic; both 0 turn checkpoints off.
    auditCheckpoints: Object.freeze({ records: raw.AUDIT_CHECKPOINT_RECORDS ?? 100_000, seconds: raw.AUDIT_CHECKPOINT_SECONDS ?? 10 }),
    auditSigningKey: raw.AUDIT_SIGNING_KEY ?? null,
    auditPartitions: raw.AUDIT_PARTITIONS ?? 1,
    // Short-lived: a permit authorises a trade on facts that age within minutes.
    permits: Object.freeze({ signerKey: raw.PERMIT_SIGNER_KEY ?? null, guard: raw.PERMIT_GUARD_ADDRESS ?? null, ttlSeconds: raw.PERMIT_TTL_SECONDS ?? 120 }),
    idempotencyTtlMs: (raw.IDEMPOTENCY_TTL_SECONDS ?? 300) * 1000,
    rateLimits: resolveRateLimits(raw),
    mcpSessions: Object.freeze({
      perIp: raw.MCP_SESSIONS_PER_IP ?? 5,
      max: raw.MCP_SESSIONS_MAX ?? 1000,
      idleMs: (raw.MCP_SESSION_IDLE_SECONDS ?? 300) * 1000,
    }),
  };
}

function resolveRateLimits(raw: RawConfig): RateLimits {
  return Object.freeze({
    enabled: raw.RATE_LIMITS !== 'off',
    windowMs: (raw.RATE_LIMIT_WINDOW_SECONDS ?? 60) * 1000,
    walletPerTier: Object.freeze({
      1: raw.RATE_LIMIT_WALLET_TIER1 ?? 10,
      2: raw.RATE_LIMIT_WALLET_TIER2 ?? 25,
      3: raw.RATE_LIMIT_WALLET_TIER3 ?? 60,
    }),
    ip: Object.freeze({
      free: raw.RATE_LIMIT_IP_FREE ?? 300,
      demo: raw.RATE_LIMIT_IP_DEMO ?? 60,
      tokenSafety: raw.RATE_LIMIT_IP_TOKEN_SAFETY ?? 60,
      auditList: raw.RATE_LIMIT_IP_AUDIT_LIST ?? 120,
      auditVerify: raw.RATE_LIMIT_IP_AUDIT_VERIFY ?? 20,
      mcp: raw.RATE_LIMIT_IP_MCP ?? 30,
      a2a: raw.RATE_LIMIT_IP_A2A ?? 30,
      auth: raw.RATE_LIMIT_IP_AUTH ?? 60,
    }),
  });
}

function corsOrigins(value: string): '*' | readonly string[] {
  if (value === '*') return '*';
  return value === 'none' ? [] : Object.freeze(value.split(',').map((origin) => origin.trim().toLowerCase()));
}
