// The public analyze operations (analyze/free and demo/analyze): TradeRequest in, Verdict out, at Tier 1.
import { CHANNEL_TIERS, PATHS } from '../catalogue/published-facts.js';
import canonicalize from 'canonicalize';
import { sha256Hex } from '../audit/sha256.js';
import { errorVerdict, evaluateTrade, type Channel, type EvaluationDeps, type EvaluationOutcome, type EvaluationRequest } from '../evaluation/evaluate-trade.js';
import type { IdempotencyCache } from '../evaluation/idempotency.js';
import type { AccessTokens } from '../auth/access-tokens.js';
import { authenticate } from '../auth/bearer.js';
import { entitlementOf, previewTier } from '../auth/entitlement.js';
import type { HoldingsReader } from '../chain/holdings.js';
import { parseJsonBody } from '../http/json-body.js';
import { json, tooManyRequests, validationFailed } from '../http/responses.js';
import type { PlainRequest, PlainResponse, Route } from '../http/types.js';
import type { IpBucket, RateLimiter } from '../limits/rate-limiter.js';
import type { Tier } from '../risk/types.js';
import { TradeRequest } from '../schemas/trade.js';
import { compileValidator } from '../schemas/validator.js';
import { describeFailure, logFailure } from '../failures.js';
import { orUnavailable } from './unavailable.js';

export interface AnalyzeDeps {
  evaluation: EvaluationDeps;
  idempotency: IdempotencyCache;
  limiter: RateLimiter;
}

export interface SignedInCaller {
  tokens: AccessTokens;
  holdings: HoldingsReader | null;
}

/** Who is evaluating: the signed-in wallet and its entitlement (REST), or nobody (public channels). */
interface CallerContext {
  wallet: string;
  entitledTier: Tier;
}

const validateTrade = compileValidator(TradeRequest, 'body');

export function analyzeRoutes(deps: AnalyzeDeps, caller: SignedInCaller): Route[] {
  return [
    publicAnalyzeRoute(deps, PATHS.analyzeFree, 'free', 'free'),
    publicAnalyzeRoute(deps, PATHS.demoAnalyze, 'demo', 'demo'),
    {
      method: 'post',
      pattern: PATHS.analyzeTrade,
      readsBody: true,
      // The token check reads revocations from the store; a store that does not answer is a 503, not a 500.
      handler: (request) => orUnavailable(deps.evaluation.log, request, 'The trade was not evaluated', () => analyzeSignedIn(deps, caller, request)),
    },
  ];
}

/** analyze/trade: the bearer's wallet, at the tier its holdings grant or the preview tier it asks for. */
async function analyzeSignedIn(deps: AnalyzeDeps, caller: SignedInCaller, request: PlainRequest): Promise<PlainResponse> {
  const bearer = await authenticate(caller.tokens, request);
  if (!bearer.ok) return bearer.response;
  const preview = previewTier(request.headers['x-preview-tier']);
  if (!preview.ok) return validationFailed([preview.issue]);
  const wallet = bearer.claims.wallet;
  // Holdings unknown (chain down): Tier 1, the entitlement nobody has to prove.
  const entitlement = await entitlementOf(caller.holdings, wallet, preview.tier).catch(() => entitlementOf(null, wallet, preview.tier));
  return analyze(deps, request, 'rest', entitlement.effective, { wallet, entitledTier: entitlement.entitled });
}

function publicAnalyzeRoute(deps: AnalyzeDeps, pattern: string, channel: 'free' | 'demo', bucket: IpBucket): Route {
  return {
    method: 'post',
    pattern,
    readsBody: true,
    handler: async (request) => (await deps.limiter.checkIp(bucket, request.ip)) ?? analyze(deps, request, channel, CHANNEL_TIERS[channel]),
  };
}

/** Shared by every channel that evaluates a REST TradeRequest body at a known tier. */
export async function analyze(
  deps: AnalyzeDeps,
  request: PlainRequest,
  channel: Channel,
  tier: Tier,
  caller?: CallerContext,
): Promise<PlainResponse> {
  const parsed = parseJsonBody(request, validateTrade);
  if (!parsed.ok) return parsed.response;
  const body = parsed.value;
  if (caller && body.wallet.toLowerCase() !== caller.wallet) {
    return json(403, { detail: 'The wallet in the body is not the signed-in wallet' });
  }
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
    entitledTier: caller?.entitledTier,
    channel,
  };
  return toResponse(await runOnce(deps, evaluation), evaluation.trade.request_id);
}

/** Evaluates once per request_id (scoped to channel and wallet); shared by REST and MCP. */
export async function runOnce(deps: AnalyzeDeps, request: EvaluationRequest): Promise<EvaluationOutcome | { kind: 'conflict' }> {
  const compute = () => evaluateTrade(deps.evaluation, request);
  const requestId = request.trade.request_id;
  if (requestId === null) return compute();
  const scope = `${request.channel}:${request.trade.wallet.toLowerCase()}`;
  try {
    return await deps.idempotency.run(scope, requestId, fingerprint(request.body), compute);
  } catch (error) {
    const failure = describeFailure(error);
    logFailure(deps.evaluation.log, `evaluation (${request.channel}) request_id`, failure, error);
    const verdict = errorVerdict(request, `idempotency store failed: ${failure.words}`, deps.evaluation.now(), failure.code);
    return { kind: 'error', verdict } as const;
  }
}

function fingerprint(body: Record<string, unknown>): string {
  return sha256Hex(canonicalize(body) ?? '');
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
