// The public analyze operations (analyze/free and demo/analyze): TradeRequest in, Verdict out, at Tier 1.
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { errorVerdict, evaluateTrade, type Channel, type EvaluationDeps, type EvaluationOutcome, type EvaluationRequest } from '../evaluation/evaluate-trade.js';
import type { IdempotencyCache } from '../evaluation/idempotency.js';
import { parseJsonBody } from '../http/json-body.js';
import { json, tooManyRequests, validationFailed } from '../http/responses.js';
import type { PlainRequest, PlainResponse, Route } from '../http/types.js';
import type { IpBucket, RateLimiter } from '../limits/rate-limiter.js';
import type { Tier } from '../risk/types.js';
import { TradeRequest } from '../schemas/trade.js';
import { compileValidator } from '../schemas/validator.js';

export interface AnalyzeDeps {
  evaluation: EvaluationDeps;
  idempotency: IdempotencyCache;
  limiter: RateLimiter;
}

const validateTrade = compileValidator(TradeRequest, 'body');

export function analyzeRoutes(deps: AnalyzeDeps): Route[] {
  return [
    publicAnalyzeRoute(deps, '/api/v1/analyze/free', 'free', 'free'),
    publicAnalyzeRoute(deps, '/api/v1/demo/analyze', 'demo', 'demo'),
  ];
}

function publicAnalyzeRoute(deps: AnalyzeDeps, pattern: string, channel: Channel, bucket: IpBucket): Route {
  return {
    method: 'post',
    pattern,
    readsBody: true,
    handler: async (request) => (await deps.limiter.checkIp(bucket, request.ip)) ?? analyze(deps, request, channel, 1),
  };
}

/** Shared by every channel that evaluates a REST TradeRequest body at a known tier. */
export async function analyze(deps: AnalyzeDeps, request: PlainRequest, channel: Channel, tier: Tier): Promise<PlainResponse> {
  const parsed = parseJsonBody(request, validateTrade);
  if (!parsed.ok) return parsed.response;
  const body = parsed.value;
  const evaluation: EvaluationRequest = {
    trade: {
      wallet: body.wallet,
      asset: body.asset,
      contract_address: body.contract_address,
      side: body.side,
      amount: body.amount,
      max_slippage_bps: body.max_slippage_bps ?? 100,
      deadline: body.deadline ?? null,
      allow_unregistered: body.allow_unregistered ?? false,
      request_id: body.request_id ?? null,
    },
    body: body as Record<string, unknown>,
    tier,
    channel,
  };
  return toResponse(await runOnce(deps, evaluation), evaluation.trade.request_id);
}

async function runOnce(deps: AnalyzeDeps, request: EvaluationRequest) {
  const compute = () => evaluateTrade(deps.evaluation, request);
  const requestId = request.trade.request_id;
  if (requestId === null) return compute();
  const scope = `${request.channel}:${request.trade.wallet.toLowerCase()}`;
  try {
    return await deps.idempotency.run(scope, requestId, fingerprint(request.body), compute);
  } catch (error) {
    const verdict = errorVerdict(request, `idempotency store failed: ${(error as Error).message}`, deps.evaluation.now());
    return { kind: 'error', verdict } as const;
  }
}

function fingerprint(body: Record<string, unknown>): string {
  return createHash('sha256').update(canonicalize(body) ?? '').digest('hex');
}

function toResponse(outcome: EvaluationOutcome | { kind: 'conflict' }, requestId: string | null): PlainResponse {
  switch (outcome.kind) {
    case 'verdict':
      return json(200, outcome.verdict);
    case 'error':
      return json(503, outcome.verdict);
    case 'limited':
      return tooManyRequests(outcome.retryAfterMs, outcome.limit, outcome.windowMs);
    case 'conflict':
      return validationFailed([
        {
          loc: ['body', 'request_id'],
          msg: 'Value error, request_id was already used with a different request body; use a new request_id for a new trade',
          type: 'value_error',
          input: requestId,
          ctx: { error: 'idempotency key reused with a different body' },
        },
      ]);
  }
}
