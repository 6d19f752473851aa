// POST /api/x402/analyze: the REST adapter of the paid evaluation (a v1 challenge body, a v2 PAYMENT-REQUIRED header; X-PAYMENT or PAYMENT-SIGNATURE).
import { encodePaymentRequiredHeader, encodePaymentResponseHeader } from '@x402/core/http';
import { PATHS } from '../../catalogue/published-facts.js';
import { invalidTrade } from '../../evaluation/entry.js';
import { parseJsonBody } from '../../http/json-body.js';
import { errorResponse, json } from '../../http/responses.js';
import type { PlainRequest, PlainResponse, Route } from '../../http/types.js';
import { TradeRequest } from '../../schemas/trade.js';
import { compileValidator } from '../../schemas/validator.js';
import { evaluatePaid, type PaidAnswer, type PaidDeps } from '../../evaluation/paid/paid-evaluation.js';
import { refusal, type Refusal } from '../../evaluation/paid/refusals.js';
import { challengeBody, paymentRequiredV2, type PaymentTerms } from '../../evaluation/paid/terms.js';
import { restAnswer } from './analyze.js';

const validateTrade = compileValidator(TradeRequest, 'body');

const NO_PAYMENT = 'a payment is required: send it in X-PAYMENT (x402 v1) or PAYMENT-SIGNATURE (x402 v2)';

/** `paid` is null when the paid channel is off (`off` says why): the route then answers 503. */
export function x402Routes(channel: { paid: PaidDeps | null; off: string | null }): Route[] {
  return [{ method: 'post', pattern: PATHS.x402Analyze, readsBody: true, handler: (request) => analyzePaid(channel, request) }];
}

async function analyzePaid({ paid, off }: { paid: PaidDeps | null; off: string | null }, request: PlainRequest): Promise<PlainResponse> {
  // Input first: a 422 never touches the payment, which can then pay for a valid request.
  const parsed = parseJsonBody(request, validateTrade);
  if (!parsed.ok) return parsed.response;
  if (!paid) return errorResponse('facilitator_unavailable', `paid evaluation is off on this service: ${off ?? 'not configured'}`);
  const invalid = invalidTrade(paid.entry, parsed.value);
  if (invalid) return restAnswer(invalid);
  const header = paymentHeader(request);
  if (header === null) return challenge(paid.terms, NO_PAYMENT);
  if (typeof header !== 'string') return challenge(paid.terms, header.message, header.reason);
  return paidResponse(paid.terms, await evaluatePaid(paid, parsed.value, header));
}

/** The payment as sent: v1's X-PAYMENT or v2's PAYMENT-SIGNATURE; both at once must agree. */
function paymentHeader(request: PlainRequest): string | null | Refusal {
  const v1 = request.headers['x-payment'];
  const v2 = request.headers['payment-signature'];
  if (v1 !== undefined && v2 !== undefined && v1 !== v2) return refusal('payment_malformed', 'X-PAYMENT and PAYMENT-SIGNATURE carry different payments');
  const value = v2 ?? v1;
  return value === undefined || value.trim() === '' ? null : value;
}

function paidResponse(terms: PaymentTerms, paid: PaidAnswer): PlainResponse {
  switch (paid.kind) {
    case 'refused':
      return challenge(terms, paid.refusal.message, paid.refusal.reason);
    case 'failed':
      return errorResponse(paid.code, paid.message, undefined, { error: paid.message });
    case 'answered': {
      const response = restAnswer(paid.answer);
      if (!paid.receipt) return response;
      const receipt = encodePaymentResponseHeader(paid.receipt);
      const headers = { ...response.headers, 'payment-response': receipt, 'x-payment-response': receipt };
      return { ...response, headers };
    }
  }
}

/**
 * HTTP 402 (spec, Errors): the spec's v1 challenge as the body, the same terms as an x402 v2
 * `PaymentRequired` in PAYMENT-REQUIRED, base64 JSON, which stock v2 clients read first.
 */
function challenge(terms: PaymentTerms, error: string, reason?: string): PlainResponse {
  const header = encodePaymentRequiredHeader(paymentRequiredV2(terms, error));
  return json(402, challengeBody(terms, error, reason), { 'payment-required': header });
}
