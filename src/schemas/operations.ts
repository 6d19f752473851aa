// The operator-facing answers: service information (`/`), liveness (`/healthz`) and live status (`/status.json`).
import { Type, type TSchema } from '@sinclair/typebox';
import { AuditKey } from './audit-proofs.js';
import { PermitSigner } from './permits.js';
import { ErrorCode } from './errors.js';

export const ServiceInfo = Type.Object({
  name: Type.String(),
  /** This build of the service. */
  version: Type.String(),
  /** The published interface: the OpenAPI document's and the MCP server card's version. */
  api_version: Type.String(),
  description: Type.String(),
  chain: Type.Object({ id: Type.Integer(), caip2: Type.String(), name: Type.String() }),
  store: Type.Union([Type.Literal('lmdb'), Type.Literal('memory'), Type.Literal('redis')]),
  /** Paths of the documents an agent or operator reads first, by name. */
  links: Type.Object({}, { additionalProperties: Type.String() }),
  /** The key that signs audit checkpoints, as `/.well-known/audit-key.json` has it. */
  audit_key: AuditKey,
  /** The key that signs trade permits, as `/.well-known/permit-signer.json` has it. */
  permit_signer: PermitSigner,
});

/**
 * 200 with `ok`/`reachable`, or `degraded` and a `reason` while the audit log takes no appends
 * (no verdict can be given); 503 with `unavailable`/`unreachable` and the catalogue's `{detail, code}`, and a
 * `reason` when the audit log says why (a start waiting for room on a full disk).
 */
export const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('unavailable')]),
  store: Type.Union([Type.Literal('reachable'), Type.Literal('unreachable')]),
  reason: Type.Optional(Type.String()),
  detail: Type.Optional(Type.String()),
  code: Type.Optional(ErrorCode),
});

const ComponentHealth = Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('down')]);

/**
 * The parts every status document has; components carry more facts of their own (the audit head,
 * the chain's block), which stay open here so the document can grow without breaking a client.
 */
export const ServiceStatus = Type.Object(
  {
    status: ComponentHealth,
    checked_at: Type.String({ format: 'date-time' }),
    components: Type.Object(
      {},
      { additionalProperties: Type.Object({ status: ComponentHealth, reason: Type.Optional(Type.String()) }, { additionalProperties: true }) },
    ),
  },
  { additionalProperties: true },
);

const Percentiles = Type.Object({
  count: Type.Integer(), p50_ms: Type.Number(), p90_ms: Type.Number(), p99_ms: Type.Number(), p999_ms: Type.Number(), max_ms: Type.Number(),
});

/** `/metrics/latency.json`: per route (`METHOD /pattern`), the percentiles of each window. */
export const LatencyReport = Type.Object({
  generated_at: Type.String({ format: 'date-time' }),
  unit: Type.Literal('ms'),
  routes: Type.Record(Type.String(), Type.Object({ '1m': Percentiles, '5m': Percentiles, '1h': Percentiles })),
});

/** `/metrics/decisions.json`: this instance's verdicts per minute by decision, the last 60 minutes, oldest first. */
export const DecisionsReport = Type.Object({
  generated_at: Type.String({ format: 'date-time' }),
  minutes: Type.Array(Type.Object({
    start: Type.String({ format: 'date-time' }),
    allow: Type.Integer({ minimum: 0 }),
    warn: Type.Integer({ minimum: 0 }),
    deny: Type.Integer({ minimum: 0 }),
  }), { minItems: 60, maxItems: 60 }),
});

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** `/debug/feeds`: every feed as the chain has it at `block`, beside the venue's price. */
export const FeedReport = Type.Object({
  block: Type.Object({ number: Type.Integer(), timestamp: Type.Integer(), age_seconds: Type.Integer() }),
  feeds: Type.Array(Type.Object({
    symbol: Type.String(),
    feed: Type.String(),
    decimals: Nullable(Type.Integer()),
    round_id: Nullable(Type.String()),
    answer: Nullable(Type.String()),
    price_usd: Nullable(Type.Number()),
    updated_at: Nullable(Type.Integer()),
    age_seconds: Nullable(Type.Integer()),
    stale: Nullable(Type.Boolean()),
    venue_price_usd: Nullable(Type.Number()),
    deviation_bps: Nullable(Type.Number()),
    problem: Type.Optional(Type.String()),
  })),
});
