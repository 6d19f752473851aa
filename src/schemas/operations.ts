// The operator-facing answers: service information (`/`), liveness (`/healthz`) and live status (`/status.json`).
import { Type } from '@sinclair/typebox';
import { ErrorCode } from './errors.js';

export const ServiceInfo = Type.Object({
  name: Type.String(),
  version: Type.String(),
  description: Type.String(),
  chain: Type.Object({ id: Type.Integer(), caip2: Type.String(), name: Type.String() }),
  store: Type.Union([Type.Literal('memory'), Type.Literal('redis')]),
  /** Paths of the documents an agent or operator reads first, by name. */
  links: Type.Object({}, { additionalProperties: Type.String() }),
});

/** 200 with `ok`/`reachable`; 503 with `unavailable`/`unreachable` and the catalogue's `{detail, code}`. */
export const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  store: Type.Union([Type.Literal('reachable'), Type.Literal('unreachable')]),
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
