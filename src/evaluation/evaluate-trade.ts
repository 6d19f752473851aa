// The evaluation pipeline: rate window -> gather facts -> score -> audit -> verdict.
import type { AuditEntry, AuditLog, AuditPayment } from '../audit/record/audit-log.js';
import type { RateLimits } from '../config.js';
import type { Counterfactuals, RiskInput, RiskResult, Tier, TierPolicy, TradeInput } from '../risk/types.js';
import type { ErrorCode } from '../catalogue/errors.js';
import type { Verdict } from '../schemas/trade.js';
import type { CacheStore } from '../store/cache-store.js';
import { DependencyError, describeFailure, failureOf, INTERNAL_ERROR, logFailure, type Failure, type Logger } from '../catalogue/failures.js';
import type { StoreState } from '../store/store-state.js';
import { gatherFacts, type FactSources } from './gather-facts.js';
import { sealFacts, type TierOrigin } from './recorded-facts.js';
import { resolveFacts } from './resolve-facts.js';
import { recordedRequest } from './trade-of-request.js';
import type { ScoreBatcher } from './score-batcher.js';
import { countEvaluation } from './wallet-window.js';
import { orGiveBack, scoreWithinBudget } from './daily-budget-use.js';
import { withPermit } from './permits/permit-issuer.js';
import type { PermitSettings } from './permits/trade-permit.js';

export type Channel = 'rest' | 'free' | 'demo' | 'mcp' | 'x402' | 'a2a';

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
  /** A recorded verdict, with its reasons (a deny's POLICY_* codes are counted by code). */
  decision(channel: string, decision: string, reasons: readonly string[]): void;
  evaluationError(channel: string, code: string): void;
}

export interface EvaluationRequest {
  trade: TradeInput & { request_id: string | null };
  /** The JSON the caller sent (defaults applied); the audit entry records it less the defaults (`recordedRequest`). */
  body: Record<string, unknown>;
  /** The policy of the tier the caller evaluates at, resolved once by the evaluation entry. */
  policy: TierPolicy;
  /** REST only: the tier the wallet's holdings grant, when `tier` is a preview of another. */
  entitledTier?: Tier;
  /** REST only: the service-token holdings the tier was read from; null when they could not be read. */
  holdings?: number | null;
  channel: Channel;
  /** The caller proved it controls `trade.wallet` (bearer token, its own payment): its own window (wallet-window.ts). */
  provenWallet?: boolean;
  /** The caller asked for a signed TradePermit with an `allow` (docs/enforcing-on-chain.md). */
  permit?: boolean;
  /**
   * Paid channels: collects the payment once the verdict is scored and before it is recorded,
   * so nothing is charged for an `error` or a full window, and no verdict is recorded or sent
   * unpaid. What it settles goes into the audit record.
   */
  settle?: Settle;
}

/** Given the scored verdict as it would be recorded unpaid, so the channel can keep it for the payer before it charges. */
export type Settle = (unpaid: UnrecordedVerdict) => Promise<Settlement>;

/** A settled payment, or why it was not: the evaluation then stops with nothing recorded. */
export type Settlement =
  | { settled: true; payment: AuditPayment }
  | { settled: false; code: ErrorCode; message: string };

export type EvaluationOutcome =
  | { kind: 'verdict'; verdict: Verdict }
  | { kind: 'limited'; retryAfterMs: number; limit: number; windowMs: number }
  /** `unrecorded`: a paid verdict scored and settled whose record could not be written. */
  | { kind: 'error'; verdict: ErrorVerdict; unrecorded?: UnrecordedVerdict }
  | { kind: 'unsettled'; code: ErrorCode; message: string };

/** Fails closed: any fact, store, pool or audit failure becomes an `error` outcome, never a verdict. */
export async function evaluateTrade(deps: EvaluationDeps, request: EvaluationRequest): Promise<EvaluationOutcome> {
  const wallet = request.trade.wallet.toLowerCase();
  const windowLimit = deps.limits.walletPerTier[request.entitledTier ?? request.policy.tier];
  // Checked before anything touches the store: a forgotten policy or window must not shape a verdict.
  const lost = lostStoreVerdict(deps, request);
  if (lost !== null) return { kind: 'error', verdict: lost };
  let step = 'rate window';
  try {
    // Each step answers at once when nothing is to be waited for (limits off, facts at hand, an allow without a
    // budget); only a promise is awaited, as every await costs a turn of promises (issue 41).
    const counted = countEvaluation(deps, wallet, windowLimit, request.provenWallet === true);
    const window = counted instanceof Promise ? await counted : counted;
    if (!window.allowed) {
      return { kind: 'limited', retryAfterMs: window.retryAfterMs, limit: windowLimit, windowMs: deps.limits.windowMs };
    }
    step = 'fact gathering';
    const facts = { windowCount: window.count, windowLimit, windowSeconds: deps.limits.windowMs / 1000, nowMs: deps.now(), windowHitsMs: window.hitsMs };
    const read = gatherFacts(deps, request.trade, request.policy, facts, request.entitledTier);
    const gathered = read instanceof Promise ? await read : read;
    // The engine refuses a permit on a flagged price (PERMIT_ON_FLAGGED_PRICE), so it must know one was asked for.
    if (request.permit) gathered.permitRequested = true;
    step = 'scoring';
    // A wallet with a daily budget has an allowed or warned notional counted here (ARCHITECTURE.md "Fleet limits").
    const scored = scoreWithinBudget(deps.store, deps.scorer, gathered);
    const budgeted = scored instanceof Promise ? await scored : scored;
    const { input, result } = budgeted;
    step = 'audit append';
    // Nothing is charged for a verdict the log cannot take: a failed or full log, or the wallet's chain down, is known before settling.
    const unready = logUnready(deps.audit, wallet);
    if (unready !== null) {
      await budgeted.giveBack();
      throw unready;
    }
    let payment: AuditPayment | undefined;
    if (request.settle) {
      step = 'payment settlement';
      const settle = request.settle;
      const settlement = await orGiveBack(budgeted, () => settle(owedVerdict(request, wallet, input, result, undefined)));
      if (!settlement.settled) {
        await budgeted.giveBack();
        return { kind: 'unsettled', code: settlement.code, message: settlement.message };
      }
      payment = settlement.payment;
    }
    step = 'audit append';
    const owed = owedVerdict(request, wallet, input, result, payment);
    let verdict: Verdict;
    try {
      verdict = await recordVerdict(deps, owed);
    } catch (error) {
      if (!payment) return await orGiveBack(budgeted, () => Promise.reject(error));
      // Paid and not recorded (a race with the disk): the caller keeps what it paid for (paid-evaluation.ts).
      return { kind: 'error', verdict: failedVerdict(deps, request, step, error), unrecorded: owed };
    }
    if (!owed.permit || !deps.permits) return { kind: 'verdict', verdict };
    step = 'permit signing';
    return { kind: 'verdict', verdict: await withPermit(deps.permits, input, verdict) };
  } catch (error) {
    return { kind: 'error', verdict: failedVerdict(deps, request, step, error) };
  }
}

/** A step's failure: told to the log in detail and counted, told to the caller as an error verdict with its code. */
function failedVerdict(deps: EvaluationDeps, request: EvaluationRequest, step: string, error: unknown): ErrorVerdict {
  const failure = describeFailure(error, STEP_FAILURES[step] ?? INTERNAL_ERROR);
  logFailure(deps.log, `evaluation (${request.channel}) ${step}`, failure, error);
  deps.metrics?.evaluationError(request.channel, failure.code);
  return errorVerdict(request, `${step} failed: ${failure.words}`, deps.now(), failure.code);
}

/** Why the log cannot take the wallet's record now, as the error the evaluation fails with; null when it can (checked without a promise). */
function logUnready(audit: AuditLog, wallet: string): DependencyError | null {
  const unready = audit.readiness(wallet);
  return unready === null ? null : new DependencyError(AUDIT_UNAVAILABLE, `the audit log cannot take a record: ${unready}`);
}

/** The record to append and what the verdict adds to it: what a paid verdict not yet recorded is kept as. */
function owedVerdict(request: EvaluationRequest, wallet: string, input: RiskInput, result: RiskResult, payment: AuditPayment | undefined): UnrecordedVerdict {
  const recorded = recordedRequest(request.body);
  return {
    entry: {
      wallet,
      channel: request.channel,
      request: recorded,
      decision: result.decision,
      risk_score: result.risk_score,
      reasons: result.reasons,
      tier: request.policy.tier,
      price_usd: input.price.usd,
      price_source: input.price.source,
      ...(payment ? { payment } : {}),
      // The record's request and ts are the trade and time the verdict was judged on: format 3 facts keep neither again.
      ts: input.nowMs,
      facts: sealFacts(input, tierOrigin(request), recorded),
    },
    verdict: verdictParts(request, result, input.safety, input.wallet.dailyPnlUsd),
    permit: request.permit === true,
  };
}

/** Why the evaluation ran at its tier, for the recorded facts. */
function tierOrigin(request: EvaluationRequest): TierOrigin {
  if (request.channel === 'rest') return { basis: 'holdings', holdings: request.holdings ?? null };
  return FIXED_ORIGINS[request.channel];
}

/** The origins that depend on the channel alone: one frozen object each, so their text is written once (canonical-text.ts). */
const FIXED_ORIGINS: Readonly<Record<Exclude<Channel, 'rest'>, TierOrigin>> = Object.freeze({
  x402: Object.freeze({ basis: 'payment' }),
  free: Object.freeze({ basis: 'channel', channel: 'free' }),
  demo: Object.freeze({ basis: 'channel', channel: 'demo' }),
  mcp: Object.freeze({ basis: 'channel', channel: 'mcp' }),
  a2a: Object.freeze({ basis: 'channel', channel: 'a2a' }),
});

/** What a verdict adds to its record's fields (the rest comes from the record: seq, hash, time, price). */
interface VerdictParts {
  tier: Tier;
  max_trade_usd: number;
  calculated_notional_usd: number;
  price_impact_bps: number | null;
  request_id: string | null;
  contract_risk: { severity: string; flagged_danger: boolean; risk_factors: string[] };
  daily_pnl_usd: number;
  counterfactuals?: Counterfactuals;
}

/**
 * A scored verdict and the record that must precede it. Paid verdicts whose append failed after
 * settlement are kept in this form until they are recorded (ARCHITECTURE.md "Paid evaluation").
 */
export interface UnrecordedVerdict {
  entry: AuditEntry;
  verdict: VerdictParts;
  /** The request asked for a TradePermit, signed once the record exists. */
  permit: boolean;
}

function verdictParts(
  request: EvaluationRequest,
  result: RiskResult,
  safety: { severity: string; flaggedDanger: boolean; riskFactors: string[] },
  dailyPnlUsd: number,
): VerdictParts {
  return {
    tier: request.policy.tier,
    max_trade_usd: request.policy.maxTradeUsd,
    calculated_notional_usd: result.calculated_notional_usd,
    price_impact_bps: result.price_impact_bps ?? null,
    request_id: request.trade.request_id,
    contract_risk: { severity: safety.severity, flagged_danger: safety.flaggedDanger, risk_factors: safety.riskFactors },
    daily_pnl_usd: dailyPnlUsd,
    ...(result.counterfactuals ? { counterfactuals: result.counterfactuals } : {}),
  };
}

/** Appends the record, then builds the verdict the record vouches for (without a permit). */
async function recordVerdict(deps: EvaluationDeps, owed: UnrecordedVerdict): Promise<Verdict> {
  const record = await deps.audit.append(owed.entry);
  deps.metrics?.decision(owed.entry.channel, owed.entry.decision, owed.entry.reasons);
  const parts = owed.verdict;
  return {
    decision: record.decision as Verdict['decision'],
    reasons: record.reasons,
    tier: parts.tier,
    max_trade_usd: parts.max_trade_usd,
    calculated_notional_usd: parts.calculated_notional_usd,
    price_impact_bps: parts.price_impact_bps,
    price_usd: record.price_usd,
    price_source: record.price_source as Verdict['price_source'],
    risk_score: record.risk_score,
    timestamp: Math.floor(record.ts / 1000),
    request_id: parts.request_id,
    contract_risk: parts.contract_risk,
    daily_pnl_usd: parts.daily_pnl_usd,
    audit_hash: record.hash,
    audit_seq: record.seq,
    // Only a partitioned log names a chain: with one chain the verdict is as it always was.
    ...(record.chain === undefined ? {} : { audit_chain: record.chain }),
    ...parts.counterfactuals,
  };
}

/**
 * Records a paid verdict that was settled but not recorded, and answers it as it would have been
 * answered then; a permit it asked for is signed from its recorded facts, the engine's input.
 * Rejects when the log still cannot take it.
 */
export async function recordOwedVerdict(deps: EvaluationDeps, owed: UnrecordedVerdict): Promise<Verdict> {
  const unready = logUnready(deps.audit, owed.entry.wallet);
  if (unready !== null) throw unready;
  const verdict = await recordVerdict(deps, owed);
  if (!owed.permit || !deps.permits || !owed.entry.facts) return verdict;
  const { request, ts, facts } = owed.entry;
  const resolved = resolveFacts(facts.text, new Map(facts.shared?.map((shared) => [shared.hash, shared.text])), { request, ts: ts ?? verdict.timestamp * 1000 });
  if (!resolved.ok) throw new Error(`the kept verdict's facts cannot be read back for its permit: ${resolved.detail}`);
  return withPermit(deps.permits, resolved.facts.input, verdict);
}

/** What a step's failure is called when the error does not name its dependency itself. */
const AUDIT_UNAVAILABLE = failureOf('audit_unavailable');

const STEP_FAILURES: Readonly<Record<string, Failure>> = {
  scoring: failureOf('scoring_unavailable'),
  'audit append': AUDIT_UNAVAILABLE,
};

/** A Verdict with `error` and its `code` (what failed, e.g. `chain_unavailable`). */
export type ErrorVerdict = Verdict & { code: ErrorCode };

/**
 * The refusal of a store that lost state (an emptied or rewound Redis), or null when it may be used.
 * Asked before the first store read of an evaluation, the retry lookup included: what a lost store
 * answers cannot be trusted, and the code says why rather than whichever read failed first.
 */
export function lostStoreVerdict(deps: EvaluationDeps, request: EvaluationRequest): ErrorVerdict | null {
  const problem = deps.storeState?.problem();
  if (problem?.code !== 'store_lost_state') return null;
  return errorVerdict(request, `${problem.code}: ${problem.detail}`, deps.now(), problem.code);
}

/**
 * A response with `error` is a hard stop (spec, Decision semantics); it still reads as deny.
 * `message` is for the client: what failed in words, never a node URL or call data.
 */
export function errorVerdict(request: EvaluationRequest, message: string, nowMs: number, code = INTERNAL_ERROR.code): ErrorVerdict {
  return {
    decision: 'deny',
    reasons: [`EVALUATION_ERROR: ${message}; no verdict was produced, do not trade`],
    tier: request.policy.tier,
    max_trade_usd: request.policy.maxTradeUsd,
    calculated_notional_usd: 0,
    price_impact_bps: null,
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
