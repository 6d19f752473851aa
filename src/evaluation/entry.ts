// The one evaluation entry every channel calls: a validated trade and a caller in, an answer out, once per request_id.
import canonicalize from 'canonicalize';
import { sha256Hex } from '../audit/record/sha256.js';
import type { ErrorCode } from '../catalogue/errors.js';
import { describeFailure, logFailure } from '../catalogue/failures.js';
import { tierPolicy } from '../risk/tiers.js';
import type { Tier } from '../risk/types.js';
import { engineTrade, type TradeRequest, type Verdict } from '../schemas/trade.js';
import type { ValidationIssue } from '../schemas/validator.js';
import { errorVerdict, evaluateTrade, lostStoreVerdict, type Channel, type ErrorVerdict, type EvaluationDeps, type EvaluationRequest, type Settle, type UnrecordedVerdict } from './evaluate-trade.js';
import type { IdempotencyCache } from './idempotency.js';
import { amountIssue } from './trade-amount.js';

export interface EntryDeps {
  evaluation: EvaluationDeps;
  idempotency: IdempotencyCache;
}

/** A trade as any channel's schema validated it: the one trade shape (src/schemas/trade.ts), of which each channel's variant is a part. */
export type ChannelTrade = TradeRequest;

/** Who asks: the channel, the tier it evaluates at, and (REST previews) the tier the holdings grant. */
export interface Caller {
  channel: Channel;
  tier: Tier;
  entitledTier?: Tier;
  /** REST: the service-token holdings behind the tier (null when unreadable), kept in the recorded facts. */
  holdings?: number | null;
  /** Paid channels: collects the payment between scoring and recording (see EvaluationRequest). */
  settle?: Settle;
  /** The caller proved the trade's wallet: a bearer token for it, or a payment signed by it (wallet-window.ts). */
  provenWallet?: boolean;
}

/** What every channel renders: a verdict, or a catalogued refusal with what the caller needs to act on it. */
export type EvaluationAnswer =
  | { kind: 'verdict'; verdict: Verdict }
  /** `unrecorded`: a paid verdict settled and not recorded, which the paid channel keeps for the payer (evaluate-trade.ts). */
  | { kind: 'error'; code: ErrorCode; verdict: ErrorVerdict; unrecorded?: UnrecordedVerdict }
  | { kind: 'limited'; code: 'rate_limited'; message: string; retryAfterMs: number; limit: number; windowMs: number }
  | { kind: 'conflict'; code: 'idempotency_conflict'; message: string; requestId: string | null }
  /** Input the schema could not judge alone (the amount on the token's grid): REST 422, an MCP tool error. */
  | { kind: 'invalid'; code: 'validation_failed'; message: string; detail: ValidationIssue[] }
  | { kind: 'unsettled'; code: ErrorCode; message: string };

export async function evaluateOnce(deps: EntryDeps, trade: ChannelTrade, caller: Caller): Promise<EvaluationAnswer> {
  const invalid = invalidTrade(deps, trade);
  if (invalid) return invalid;
  const request = evaluationRequest(trade, caller);
  // Fail closed before anything is counted or charged: a permit asked for and impossible to sign is an error, not a bare verdict.
  if (request.permit && !deps.evaluation.permits) {
    const message = 'this service issues no trade permits: no TradePermitGuard is configured (PERMIT_GUARD_ADDRESS)';
    return { kind: 'error', code: 'permits_unavailable', verdict: errorVerdict(request, message, deps.evaluation.now(), 'permits_unavailable') };
  }
  const outcome = await runOnce(deps, request);
  switch (outcome.kind) {
    case 'verdict':
    case 'unsettled':
      return outcome;
    case 'error':
      return { kind: 'error', code: outcome.verdict.code, verdict: outcome.verdict, ...(outcome.unrecorded ? { unrecorded: outcome.unrecorded } : {}) };
    case 'limited': {
      const seconds = Math.max(1, Math.ceil(outcome.retryAfterMs / 1000));
      const message = `rate limited: ${outcome.limit} evaluations per ${outcome.windowMs / 1000} s for this wallet; retry after ${seconds} s`;
      return { ...outcome, code: 'rate_limited', message };
    }
    case 'conflict':
      return {
        kind: 'conflict',
        code: 'idempotency_conflict',
        message: 'request_id was already used with a different request; use a new request_id for a new trade',
        requestId: request.trade.request_id,
      };
  }
}

/**
 * What the schema cannot check without the registry: an amount of less than one base unit of the
 * token. Paid channels call it before the payment is read, so such a request is never charged.
 */
export function invalidTrade(deps: EntryDeps, trade: ChannelTrade): Extract<EvaluationAnswer, { kind: 'invalid' }> | null {
  const issue = amountIssue(deps.evaluation.registry, trade);
  return issue ? { kind: 'invalid', code: 'validation_failed', message: String(issue.ctx?.error), detail: [issue] } : null;
}

/** The channel's trade with the spec's defaults; `body` is what the audit record keeps and the key's fingerprint covers. */
function evaluationRequest(trade: ChannelTrade, caller: Caller): EvaluationRequest {
  return {
    trade: engineTrade(trade),
    body: trade as unknown as Record<string, unknown>,
    // The tier's policy is looked up here once; scoring, the verdict and an error verdict read it from the request.
    policy: tierPolicy(caller.tier),
    entitledTier: caller.entitledTier,
    holdings: caller.holdings,
    channel: caller.channel,
    provenWallet: caller.provenWallet === true,
    permit: trade.permit === true,
    settle: caller.settle,
  };
}

type RunOutcome = Awaited<ReturnType<typeof evaluateTrade>> | { kind: 'conflict' };

/**
 * Evaluates once per request_id, scoped to channel and wallet, so nobody reads another wallet's verdict. Without a
 * request_id the evaluation's own promise is handed back, not wrapped in another (a turn of promises fewer per verdict).
 */
function runOnce(deps: EntryDeps, request: EvaluationRequest): Promise<RunOutcome> {
  const requestId = request.trade.request_id;
  return requestId === null ? evaluateTrade(deps.evaluation, request) : runOnceById(deps, request, requestId);
}

async function runOnceById(deps: EntryDeps, request: EvaluationRequest, requestId: string): Promise<RunOutcome> {
  const compute = () => evaluateTrade(deps.evaluation, request);
  const lost = lostStoreVerdict(deps.evaluation, request);
  if (lost !== null) return { kind: 'error', verdict: lost } as const;
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

/** What binds a retry to its first request (request_id) or a payment to the trade it paid for: the SHA-256 of the canonical JSON. */
export function fingerprint(body: object): string {
  return sha256Hex(canonicalize(body) ?? '');
}
