// The evaluation pipeline: rate window -> gather facts -> score in the pool -> audit -> verdict.
import type { AuditLog, AuditPayment, AuditRecord } from '../audit/audit-log.js';
import type { RateLimits } from '../config.js';
import type { RiskResult, Tier, TradeInput } from '../risk/types.js';
import { tierPolicy } from '../risk/tiers.js';
import type { ErrorCode } from '../catalogue/errors.js';
import type { Verdict } from '../schemas/trade.js';
import type { CacheStore } from '../store/cache-store.js';
import { describeFailure, failureOf, INTERNAL_ERROR, logFailure, type Failure, type Logger } from '../failures.js';
import type { StoreState } from '../store/store-state.js';
import { gatherFacts, type FactSources } from './gather-facts.js';
import { sealFacts, type TierOrigin } from './recorded-facts.js';
import type { ScoreBatcher } from './score-batcher.js';
import { countEvaluation } from './wallet-window.js';
import { withPermit } from '../permits/permit-issuer.js';
import type { PermitSettings } from '../permits/trade-permit.js';

export type Channel = 'rest' | 'free' | 'demo' | 'mcp' | 'x402';

export interface EvaluationDeps extends FactSources {
  store: CacheStore;
  audit: AuditLog;
  scorer: ScoreBatcher;
  limits: RateLimits;
  now: () => number;
  /** Where a failed evaluation's details go; the verdict itself only says what failed. */
  log: Logger;
  /**
   * A store that lost state refuses every evaluation; absent means always usable. An unverified
   * store needs no refusal here: the audit append checks the epoch and head inside Redis.
   */
  storeState?: StoreState;
  /** Counts verdicts and fail-closed errors (Prometheus); absent in tests that do not look. */
  metrics?: EvaluationMetrics;
  /** Signs trade permits for requests that ask (`permit: true`); null or absent: none are issued. */
  permits?: PermitSettings | null;
}

export interface EvaluationMetrics {
  decision(channel: string, decision: string): void;
  evaluationError(channel: string, code: string): void;
}

export interface EvaluationRequest {
  trade: TradeInput & { request_id: string | null };
  /** The JSON the caller sent (defaults applied), recorded in the audit entry as is. */
  body: Record<string, unknown>;
  tier: Tier;
  /** REST only: the tier the wallet's holdings grant, when `tier` is a preview of another. */
  entitledTier?: Tier;
  /** REST only: the service-token holdings the tier was read from; null when they could not be read. */
  holdings?: number | null;
  channel: Channel;
  /** The caller proved it controls `trade.wallet` (bearer token, its own payment): its own window (wallet-window.ts). */
  provenWallet?: boolean;
  /** The caller asked for a signed TradePermit with an `allow` (README "Enforcing verdicts on chain"). */
  permit?: boolean;
  /**
   * Paid channels: collects the payment once the verdict is scored and before it is recorded,
   * so nothing is charged for an `error` or a full window, and no verdict is recorded or sent
   * unpaid. What it settles goes into the audit record.
   */
  settle?: Settle;
}

export type Settle = (scored: { decision: string; risk_score: number }) => Promise<Settlement>;

/** A settled payment, or why it was not: the evaluation then stops with nothing recorded. */
export type Settlement =
  | { settled: true; payment: AuditPayment }
  | { settled: false; code: ErrorCode; message: string };

export type EvaluationOutcome =
  | { kind: 'verdict'; verdict: Verdict }
  | { kind: 'limited'; retryAfterMs: number; limit: number; windowMs: number }
  | { kind: 'error'; verdict: ErrorVerdict }
  | { kind: 'unsettled'; code: ErrorCode; message: string };

/** Fails closed: any fact, store, pool or audit failure becomes an `error` outcome, never a verdict. */
export async function evaluateTrade(deps: EvaluationDeps, request: EvaluationRequest): Promise<EvaluationOutcome> {
  const wallet = request.trade.wallet.toLowerCase();
  const windowLimit = deps.limits.walletPerTier[request.entitledTier ?? request.tier];
  // Checked before anything touches the store: a forgotten policy or window must not shape a verdict.
  const problem = deps.storeState?.problem();
  if (problem?.code === 'store_lost_state') return { kind: 'error', verdict: errorVerdict(request, `${problem.code}: ${problem.detail}`, deps.now(), problem.code) };
  let step = 'rate window';
  try {
    const window = await countEvaluation(deps, wallet, windowLimit, request.provenWallet === true);
    if (!window.allowed) {
      return { kind: 'limited', retryAfterMs: window.retryAfterMs, limit: windowLimit, windowMs: deps.limits.windowMs };
    }
    step = 'fact gathering';
    const facts = { windowCount: window.count, windowLimit, windowSeconds: deps.limits.windowMs / 1000, nowMs: deps.now(), windowHitsMs: window.hitsMs };
    const input = await gatherFacts(deps, request.trade, tierPolicy(request.tier), facts, request.entitledTier);
    // The engine refuses a permit on a flagged price (PERMIT_ON_FLAGGED_PRICE), so it must know one was asked for.
    if (request.permit) input.permitRequested = true;
    step = 'scoring';
    const result = await deps.scorer.score(input);
    let payment: AuditPayment | undefined;
    if (request.settle) {
      step = 'payment settlement';
      const settlement = await request.settle(result);
      if (!settlement.settled) return { kind: 'unsettled', code: settlement.code, message: settlement.message };
      payment = settlement.payment;
    }
    step = 'audit append';
    const recorded = sealFacts(input, tierOrigin(request));
    const record = await deps.audit.append({
      wallet,
      channel: request.channel,
      request: request.body,
      decision: result.decision,
      risk_score: result.risk_score,
      reasons: result.reasons,
      tier: request.tier,
      price_usd: input.price.usd,
      price_source: input.price.source,
      ...(payment ? { payment } : {}),
      facts: recorded,
    });
    deps.metrics?.decision(request.channel, result.decision);
    const verdict = toVerdict(request, result, record, input.safety, input.wallet.dailyPnlUsd);
    if (!request.permit || !deps.permits) return { kind: 'verdict', verdict };
    step = 'permit signing';
    return { kind: 'verdict', verdict: await withPermit(deps.permits, input, verdict) };
  } catch (error) {
    const failure = describeFailure(error, STEP_FAILURES[step] ?? INTERNAL_ERROR);
    logFailure(deps.log, `evaluation (${request.channel}) ${step}`, failure, error);
    deps.metrics?.evaluationError(request.channel, failure.code);
    return { kind: 'error', verdict: errorVerdict(request, `${step} failed: ${failure.words}`, deps.now(), failure.code) };
  }
}

/** Why the evaluation ran at its tier, for the recorded facts. */
function tierOrigin(request: EvaluationRequest): TierOrigin {
  if (request.channel === 'x402') return { basis: 'payment' };
  if (request.channel === 'rest') return { basis: 'holdings', holdings: request.holdings ?? null };
  return { basis: 'channel', channel: request.channel };
}

function toVerdict(
  request: EvaluationRequest,
  result: RiskResult,
  record: AuditRecord,
  safety: { severity: string; flaggedDanger: boolean; riskFactors: string[] },
  dailyPnlUsd: number,
): Verdict {
  return {
    decision: result.decision,
    reasons: result.reasons,
    tier: request.tier,
    max_trade_usd: tierPolicy(request.tier).maxTradeUsd,
    calculated_notional_usd: result.calculated_notional_usd,
    price_usd: record.price_usd,
    price_source: record.price_source as Verdict['price_source'],
    risk_score: result.risk_score,
    timestamp: Math.floor(record.ts / 1000),
    request_id: request.trade.request_id,
    contract_risk: {
      severity: safety.severity,
      flagged_danger: safety.flaggedDanger,
      risk_factors: safety.riskFactors,
    },
    daily_pnl_usd: dailyPnlUsd,
    audit_hash: record.hash,
    audit_seq: record.seq,
    ...result.counterfactuals,
  };
}

/** What a step's failure is called when the error does not name its dependency itself. */
const STEP_FAILURES: Readonly<Record<string, Failure>> = {
  scoring: failureOf('scoring_unavailable'),
  'audit append': failureOf('audit_unavailable'),
};

/** A Verdict with `error` and its `code` (what failed, e.g. `chain_unavailable`). */
export type ErrorVerdict = Verdict & { code: ErrorCode };

/**
 * A response with `error` is a hard stop (spec, Decision semantics); it still reads as deny.
 * `message` is for the client: what failed in words, never a node URL or call data.
 */
export function errorVerdict(request: EvaluationRequest, message: string, nowMs: number, code = INTERNAL_ERROR.code): ErrorVerdict {
  return {
    decision: 'deny',
    reasons: [`EVALUATION_ERROR: ${message}; no verdict was produced, do not trade`],
    tier: request.tier,
    max_trade_usd: tierPolicy(request.tier).maxTradeUsd,
    calculated_notional_usd: 0,
    price_usd: 0,
    price_source: 'unavailable',
    risk_score: 100,
    timestamp: Math.floor(nowMs / 1000),
    request_id: request.trade.request_id,
    contract_risk: null,
    daily_pnl_usd: 0,
    audit_hash: null,
    audit_seq: null,
    error: message,
    code,
  };
}
