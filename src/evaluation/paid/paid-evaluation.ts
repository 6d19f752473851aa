// One payment, one verdict: verify, evaluate, settle, record, in that order, once per payment across instances.
import { PAYMENT } from '../../catalogue/published-facts.js';
import type { ErrorCode } from '../../catalogue/errors.js';
import { evaluateOnce, fingerprint, type ChannelTrade, type EntryDeps, type EvaluationAnswer } from '../entry.js';
import { recordOwedVerdict, type Settle, type Settlement, type UnrecordedVerdict } from '../evaluate-trade.js';
import { describeFailure, failureOf, logFailure, type Logger } from '../../catalogue/failures.js';
import type { AuditPayment } from '../../audit/record/audit-log.js';
import type { CacheStore } from '../../store/cache-store.js';
import { ClaimBusyError, ClaimOnce } from '../../store/claim-once.js';
import { owedPaymentKey, paymentKey } from '../../store/keys.js';
import type { FacilitatorPort, Settled } from './facilitator-client.js';
import type { PayerSignatureCheck } from './payer-signature.js';
import { readPayment, windowRefusal, type Authorization, type ReadPayment } from './payment-payload.js';
import { refusal, type Refusal } from './refusals.js';
import { requirementsV2, type PaymentTerms } from './terms.js';

/** The settlement receipt both payment-response headers carry (base64 JSON). */
export type Receipt = { success: true } & Settled;

/** What a paid call comes to; every channel renders these four. */
export type PaidAnswer =
  /** 402 with the challenge again: nothing was charged. */
  | { kind: 'refused'; refusal: Refusal }
  /** 503: the facilitator or the store failed; nothing was charged, no verdict released. */
  | { kind: 'failed'; code: ErrorCode; message: string }
  /** The evaluation's own answer; `receipt` is set exactly when this payment was charged for it. */
  | { kind: 'answered'; answer: EvaluationAnswer; receipt: Receipt | null };

export interface PaidDeps {
  entry: EntryDeps;
  terms: PaymentTerms;
  facilitator: FacilitatorPort;
  ledger: PaymentLedger;
  log: Logger;
  /** Checks the payer's signature before a verdict kept for this payment (replayed or owed) is released. */
  payerSigned: PayerSignatureCheck;
  /**
   * Reads the chain for a settlement whose answer was lost (findSettlement); absent, a
   * facilitator that does not answer /settle is taken at its word: nothing settled.
   */
  settledOnChain?: (authorization: Authorization) => Promise<string | null>;
  /**
   * Chain time in seconds, the latest block's timestamp, that payment windows are judged by (the
   * chain judges them so); default the wall clock. Never rejects: the assembly falls back to the wall clock.
   */
  chainSeconds?: () => Promise<number>;
  /** Counts payments by outcome (Prometheus). */
  metrics?: { payment(outcome: 'settled' | 'refused' | 'failed', reason: string): void };
}

/** A paid verdict stays replayable this long; after that the chain itself refuses the used nonce. */
export const PAYMENT_REPLAY_MS = 3_600_000;

/** A second request with the same payment waits this long for the first one's verdict (verify + settle). */
const PAYMENT_WAIT_MS = 70_000;

/**
 * The claim on each payment, shared by every instance on the store. A payment's claim is kept
 * only when it was charged; a refusal, a 429, an `error` or a facilitator failure releases it,
 * so the same payment can still buy a verdict for a valid request.
 */
export class PaymentLedger {
  readonly once: ClaimOnce<PaidAnswer>;

  constructor(private readonly store: CacheStore) {
    // A verdict charged and not recorded is not kept here: its owed entry is, until it is recorded.
    const charged = (answer: PaidAnswer) => answer.kind === 'answered' && answer.receipt !== null && !isOwed(answer.answer);
    this.once = new ClaimOnce(store, PAYMENT_REPLAY_MS, PAYMENT_WAIT_MS, charged, 'this payment is still being settled');
  }

  async owed(authorization: Authorization): Promise<OwedVerdict | null> {
    const stored = await this.store.get(owedPaymentKey(authorization.from, authorization.nonce));
    return stored === null ? null : (JSON.parse(stored) as OwedVerdict);
  }

  keepOwed(authorization: Authorization, owed: OwedVerdict): Promise<void> {
    return this.store.set(owedPaymentKey(authorization.from, authorization.nonce), JSON.stringify(owed), OWED_KEEP_MS);
  }

  forgetOwed(authorization: Authorization): Promise<void> {
    return this.store.delete(owedPaymentKey(authorization.from, authorization.nonce));
  }
}

/** How long a settled, unrecorded verdict waits for its payer's retry. */
export const OWED_KEEP_MS = 30 * 24 * 3_600_000;

/** What the payer was charged for and has not received: the body it paid with, the receipt, the scored verdict. */
export interface OwedVerdict {
  fingerprint: string;
  /** Null: kept before settlement, and not (yet) told of one; the chain says whether it was charged. */
  receipt: Receipt | null;
  unrecorded: UnrecordedVerdict;
}

const isOwed = (answer: EvaluationAnswer): boolean => answer.kind === 'error' && answer.unrecorded !== undefined;

/**
 * The paid evaluation (docs/x402.md):
 * 1. the trade was validated by the channel; the payment is read and checked for its envelope and,
 *    by chain time, for a window that has begun and is no longer than the challenge's maxTimeoutSeconds;
 * 2. the payment is claimed: the same payment with the same body replays the saved verdict,
 *    with another body it is refused (`payment_used`);
 * 3. the facilitator verifies it (signature, amount, recipient, window, funds, nonce unused);
 * 4. the evaluation runs at Tier 2; once the verdict is scored the facilitator settles, then
 *    the record (naming the payment) is appended and the verdict released.
 * A 429 or an `error` settles nothing; a failed settlement records and releases nothing.
 */
export async function evaluatePaid(deps: PaidDeps, trade: ChannelTrade, encodedPayment: string): Promise<PaidAnswer> {
  const answer = await paidAnswer(deps, trade, encodedPayment);
  if (deps.metrics) {
    if (answer.kind === 'refused') deps.metrics.payment('refused', answer.refusal.reason);
    else if (answer.kind === 'failed') deps.metrics.payment('failed', answer.code);
    else if (answer.receipt) deps.metrics.payment('settled', 'settled');
  }
  return answer;
}

async function paidAnswer(deps: PaidDeps, trade: ChannelTrade, encodedPayment: string): Promise<PaidAnswer> {
  const read = readPayment(encodedPayment, deps.terms);
  if (!read.ok) return { kind: 'refused', refusal: read.refusal };
  const chainSeconds = deps.chainSeconds ? await deps.chainSeconds() : Math.floor(Date.now() / 1000);
  const outOfWindow = windowRefusal(read.payment.authorization, deps.terms.maxTimeoutSeconds, chainSeconds);
  if (outOfWindow) return { kind: 'refused', refusal: outOfWindow };
  const { from, nonce } = read.payment.authorization;
  try {
    const print = fingerprint(trade);
    const claimed = await deps.ledger.once.run(paymentKey(from, nonce), print, () => buyOrRedeem(deps, trade, read.payment, print));
    if (claimed.kind === 'conflict') return { kind: 'refused', refusal: refusal('payment_used') };
    if (claimed.kind === 'replayed') return (await forgedRefusal(deps, read.payment)) ?? claimed.value;
    return claimed.value;
  } catch (error) {
    if (error instanceof ClaimBusyError) return { kind: 'refused', refusal: refusal('payment_in_progress') };
    const failure = describeFailure(error);
    logFailure(deps.log, 'x402 payment ledger', failure, error);
    return { kind: 'failed', code: failure.code, message: `the payment could not be claimed: ${failure.words}; nothing was charged` };
  }
}

/** Inside the payment's claim: a verdict this payment already paid for and is owed is recorded now; otherwise one is bought. */
async function buyOrRedeem(deps: PaidDeps, trade: ChannelTrade, payment: ReadPayment, print: string): Promise<PaidAnswer> {
  const owed = await deps.ledger.owed(payment.authorization);
  if (owed === null) return buyVerdict(deps, trade, payment, print);
  if (owed.fingerprint !== print) return { kind: 'refused', refusal: refusal('payment_used') };
  const forged = await forgedRefusal(deps, payment);
  if (forged) return forged;
  const receipt = owed.receipt ?? await settledBeforeLoss(deps, payment);
  // Kept before a settlement that never landed: nothing was charged, and this payment can still buy a verdict.
  if (receipt === null) return buyVerdict(deps, trade, payment, print);
  const unrecorded = owed.receipt ? owed.unrecorded : { ...owed.unrecorded, entry: { ...owed.unrecorded.entry, payment: auditPayment(deps.terms, payment, receipt) } };
  try {
    const verdict = await recordOwedVerdict(deps.entry.evaluation, unrecorded);
    deps.log(`x402: the verdict paid in ${receipt.transaction} was recorded on the payer's retry (seq ${verdict.audit_seq})`);
    // Recorded: the claim now keeps the answer for replays; the owed entry must go, or a later retry would record it again.
    await deps.ledger.forgetOwed(payment.authorization).catch((error: unknown) => {
      logFailure(deps.log, `x402 owed verdict ${receipt.transaction} recorded but not cleared`, describeFailure(error), error);
    });
    return { kind: 'answered', answer: { kind: 'verdict', verdict }, receipt };
  } catch (error) {
    const failure = describeFailure(error, failureOf('audit_unavailable'));
    logFailure(deps.log, 'x402 owed verdict', failure, error);
    const message = `the verdict this payment bought (transaction ${receipt.transaction}) is still not recorded: ${failure.words}; nothing more was charged; retry with the same payment`;
    return { kind: 'failed', code: failure.code, message };
  }
}

/**
 * A kept verdict is found by payer and nonce, which anyone who saw the payment knows: it goes only to a
 * payment the payer signed (the facilitator's own check, made here because no facilitator is asked).
 * Null when signed; the `invalid_signature` refusal, or a 503 when the chain cannot say, otherwise.
 */
async function forgedRefusal(deps: PaidDeps, payment: ReadPayment): Promise<PaidAnswer | null> {
  try {
    return (await deps.payerSigned(payment)) ? null : { kind: 'refused', refusal: refusal('invalid_signature') };
  } catch (error) {
    const failure = describeFailure(error, failureOf('chain_unavailable'));
    logFailure(deps.log, 'x402 payer signature', failure, error);
    return { kind: 'failed', code: failure.code, message: `the payment's signature could not be checked: ${failure.words}; nothing was released or charged; retry with the same payment` };
  }
}

async function buyVerdict(deps: PaidDeps, trade: ChannelTrade, payment: ReadPayment, print: string): Promise<PaidAnswer> {
  const requirements = requirementsV2(deps.terms);
  const verified = await deps.facilitator.verify(payment.payload, requirements);
  if (verified.kind === 'refused') return { kind: 'refused', refusal: verified.refusal };
  if (verified.kind === 'unavailable') return facilitatorDown(deps, verified.detail);

  let receipt: Receipt | null = null;
  let settleRefusal: Refusal | null = null;
  let keptBeforeSettling = false;
  const settle: Settle = async (unpaid) => {
    // Kept before it is charged for (ARCHITECTURE.md "Paid evaluation"): a verdict that cannot be kept for its payer is not sold.
    const unkept = await keepBeforeSettling(deps, payment, { fingerprint: print, receipt: null, unrecorded: unpaid });
    if (unkept) return unkept;
    keptBeforeSettling = true;
    const settled = await deps.facilitator.settle(payment.payload, requirements);
    // Refused after it verified: if someone else submitted this very authorization in
    // between (it is public once sent), the transfer still paid the terms to payTo.
    const frontRun = settled.kind === 'refused' ? await transferOnChain(deps, payment, `/settle refused (${settled.refusal.reason})`) : null;
    if (settled.kind === 'refused' && !frontRun) {
      settleRefusal = settled.refusal;
      return { settled: false, code: 'payment_refused', message: settled.refusal.message };
    }
    const value = settled.kind === 'ok' ? settled.value : frontRun ?? await lostSettlement(deps, payment, settled.kind === 'unavailable' ? settled.detail : '');
    if (!value) return { settled: false, code: 'facilitator_unavailable', message: unavailableMessage() };
    receipt = { success: true, transaction: value.transaction, network: value.network, payer: value.payer || payment.authorization.from };
    return { settled: true, payment: auditPayment(deps.terms, payment, receipt) };
  };
  // A payment signed by the trade's own wallet proves it; one from another payer proves nothing about the wallet.
  const provenWallet = payment.authorization.from.toLowerCase() === trade.wallet.toLowerCase();
  const answer = await evaluateOnce(deps.entry, trade, { channel: 'x402', tier: PAYMENT.tierGranted, settle, provenWallet });
  // Not settled, or recorded: the verdict kept before settling is owed to nobody.
  if (keptBeforeSettling && !(receipt && answer.kind === 'error' && answer.unrecorded)) await forgetKept(deps, payment);
  if (answer.kind === 'unsettled') {
    return settleRefusal ? { kind: 'refused', refusal: settleRefusal } : { kind: 'failed', code: answer.code, message: answer.message };
  }
  if (receipt && answer.kind === 'error' && answer.unrecorded) return keepOwed(deps, payment, { fingerprint: print, receipt, unrecorded: answer.unrecorded }, answer);
  if (receipt && answer.kind === 'error') {
    // Charged and recorded, then the permit could not be signed: the claim keeps the answer, so a retry is told the same and never charged twice.
    deps.log(`x402: payment ${(receipt as Receipt).transaction} settled but the verdict was not released: ${answer.verdict.error}`);
  }
  return { kind: 'answered', answer, receipt };
}

/** The audit record's `payment`: who paid, under which nonce, in which transaction, on what terms. */
function auditPayment(terms: PaymentTerms, payment: ReadPayment, receipt: Receipt): AuditPayment {
  const { transaction, network, payer } = receipt;
  return { payer: payer.toLowerCase(), nonce: payment.authorization.nonce, transaction, network, asset: terms.asset, amount: terms.amount, pay_to: terms.payTo };
}

/** Keeps the scored verdict for the payer before anything is charged; the refusal to settle when the store cannot. */
async function keepBeforeSettling(deps: PaidDeps, payment: ReadPayment, owed: OwedVerdict): Promise<Settlement | null> {
  try {
    await deps.ledger.keepOwed(payment.authorization, owed);
    return null;
  } catch (error) {
    const failure = describeFailure(error, failureOf('store_unavailable'));
    logFailure(deps.log, 'x402 verdict kept before settlement', failure, error);
    const message = `the verdict could not be kept for this payment before settling it (${failure.words}), so it was not settled: nothing was charged; retry with the same payment`;
    return { settled: false, code: failure.code, message };
  }
}

async function forgetKept(deps: PaidDeps, payment: ReadPayment): Promise<void> {
  await deps.ledger.forgetOwed(payment.authorization).catch((error: unknown) => {
    const { from, nonce } = payment.authorization;
    logFailure(deps.log, `x402 verdict kept for ${from} nonce ${nonce} not cleared`, describeFailure(error), error);
  });
}

/** A verdict kept before settlement, whose receipt was never kept: charged exactly when the chain shows the transfer. */
async function settledBeforeLoss(deps: PaidDeps, payment: ReadPayment): Promise<Receipt | null> {
  const found = await transferOnChain(deps, payment, 'a verdict was kept before its settlement');
  return found ? { success: true, ...found } : null;
}

/**
 * /settle did not answer, but the transfer may have landed: the chain says. Found, the payment
 * is settled and the verdict goes out; not found (or the chain cannot say), nothing settled.
 */
async function lostSettlement(deps: PaidDeps, payment: ReadPayment, detail: string): Promise<Settled | null> {
  logFailure(deps.log, 'x402 settle', { code: 'facilitator_unavailable', words: 'no answer' }, new Error(detail));
  return transferOnChain(deps, payment, '/settle did not answer');
}

/** The transfer of exactly the terms under this authorization, read from the chain; null when there is none or the chain cannot say. */
async function transferOnChain(deps: PaidDeps, payment: ReadPayment, why: string): Promise<Settled | null> {
  if (!deps.settledOnChain) return null;
  try {
    const transaction = await deps.settledOnChain(payment.authorization);
    if (transaction) deps.log(`x402: ${why}, but the chain shows the transfer in ${transaction}: settled`);
    return transaction ? { transaction, network: deps.terms.network, payer: payment.authorization.from } : null;
  } catch (error) {
    logFailure(deps.log, 'x402 settlement lookup', describeFailure(error), error);
    return null;
  }
}

function facilitatorDown(deps: PaidDeps, detail: string): PaidAnswer {
  logFailure(deps.log, 'x402 verify', { code: 'facilitator_unavailable', words: 'no answer' }, new Error(detail));
  return { kind: 'failed', code: 'facilitator_unavailable', message: unavailableMessage() };
}

function unavailableMessage(): string {
  return 'the x402 facilitator did not answer; no verdict was released and nothing was charged; retry with the same payment';
}

/**
 * Charged, then the record could not be written (ARCHITECTURE.md "Paid evaluation"): the scored
 * verdict, kept before settling, is kept again with the receipt, and the same request with the
 * same payment records and returns it later, never charging again. The answer now is the 503 with the receipt.
 */
async function keepOwed(deps: PaidDeps, payment: ReadPayment, owed: OwedVerdict & { receipt: Receipt }, answer: EvaluationAnswer & { kind: 'error' }): Promise<PaidAnswer> {
  const { transaction } = owed.receipt;
  try {
    await deps.ledger.keepOwed(payment.authorization, owed);
    deps.log(`x402: payment ${transaction} settled but the verdict was not recorded; it is kept for the payer's retry`);
  } catch (error) {
    // Kept already without its receipt: a retry finds the transfer on chain. The log line carries payer, nonce and transaction.
    logFailure(deps.log, `x402 payment ${transaction} by ${payment.authorization.from} nonce ${payment.authorization.nonce} settled and not recorded; its receipt was not kept beside the verdict`, describeFailure(error), error);
  }
  const error = `${answer.verdict.error}; the verdict this payment bought is kept: send the same request with the same payment again to have it recorded and returned, with no second charge`;
  return { kind: 'answered', answer: { ...answer, verdict: { ...answer.verdict, error } }, receipt: owed.receipt };
}
