// The REST analyze operations: analyze/free and demo/analyze at their fixed tier, analyze/trade at the bearer's.
import type { AccessTokens } from '../../auth/access-tokens.js';
import { authenticate } from '../../auth/bearer.js';
import { entitlementOf, previewTier } from '../../auth/entitlement.js';
import { CHANNEL_TIERS, PATHS } from '../../catalogue/published-facts.js';
import type { HoldingsReader } from '../../facts/chain/holdings.js';
import { evaluateOnce, type Caller, type EntryDeps, type EvaluationAnswer } from '../../evaluation/entry.js';
import { parseJsonBody } from '../../http/json-body.js';
import { errorResponse, tooManyRequests, validationFailed } from '../../http/responses.js';
import type { PlainRequest, PlainResponse, Route } from '../../http/types.js';
import type { IpBucket, RateLimiter } from '../../http/rate-limiter.js';
import { TradeRequest, type Verdict } from '../../schemas/trade.js';
import { compileValidator } from '../../schemas/validator.js';
import { orUnavailable } from './unavailable.js';
import { verdictText } from '../../evaluation/verdict-text.js';

export interface AnalyzeDeps extends EntryDeps {
  limiter: RateLimiter;
}

export interface SignedInCaller {
  tokens: AccessTokens;
  holdings: HoldingsReader | null;
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
  // The body's wallet must be the bearer's (wallet_mismatch otherwise), so the call proves its wallet.
  const proven: Caller = { channel: 'rest', tier: entitlement.effective, entitledTier: entitlement.entitled, holdings: entitlement.holdings, provenWallet: true };
  return analyze(deps, request, proven, wallet);
}

function publicAnalyzeRoute(deps: AnalyzeDeps, pattern: string, channel: 'free' | 'demo', bucket: IpBucket): Route {
  return {
    method: 'post',
    pattern,
    readsBody: true,
    handler: (request) => deps.limiter.guard(bucket, request.ip, () => analyze(deps, request, { channel, tier: CHANNEL_TIERS[channel] })),
  };
}

/** Parses the REST TradeRequest body, calls the evaluation entry, renders its answer. */
async function analyze(deps: AnalyzeDeps, request: PlainRequest, caller: Caller, signedIn?: string): Promise<PlainResponse> {
  const parsed = parseJsonBody(request, validateTrade);
  if (!parsed.ok) return parsed.response;
  if (signedIn !== undefined && parsed.value.wallet.toLowerCase() !== signedIn) return errorResponse('wallet_mismatch');
  return restAnswer(await evaluateOnce(deps, parsed.value, caller));
}

/** A verdict as its JSON text, written once from its layout (verdict-text.ts) rather than by the edge's JSON.stringify. */
function verdictResponse(status: number, verdict: Verdict): PlainResponse {
  return { status, raw: { contentType: 'application/json', text: verdictText(verdict) } };
}

/** An evaluation answer in REST's wire form: the verdict, the 503 error verdict, a 429, or a 422 at `request_id`. */
export function restAnswer(answer: EvaluationAnswer): PlainResponse {
  switch (answer.kind) {
    case 'verdict':
      return verdictResponse(200, answer.verdict);
    case 'error':
      return verdictResponse(503, answer.verdict);
    case 'limited':
      return tooManyRequests(answer.retryAfterMs, answer.limit, answer.windowMs);
    case 'conflict':
      return validationFailed(
        [
          {
            loc: ['body', 'request_id'],
            msg: 'Value error, request_id was already used with a different request body; use a new request_id for a new trade',
            type: 'value_error',
            input: answer.requestId,
            ctx: { error: 'idempotency key reused with a different body' },
          },
        ],
        answer.code,
      );
    case 'unsettled':
      return errorResponse(answer.code, answer.message);
    case 'invalid':
      return validationFailed(answer.detail, answer.code);
  }
}
