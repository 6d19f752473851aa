// The methodology's paid-evaluation section, from the payment terms and the refusal catalogue the service uses.
import { PAYMENT, tierLabel } from '../../catalogue/published-facts.js';
import { PAYMENT_REPLAY_MS } from '../../evaluation/paid/paid-evaluation.js';
import { PAYMENT_REFUSALS } from '../../catalogue/payment-refusals.js';

export function paymentSection(): string {
  const price = Number(PAYMENT.amountBaseUnits) / 10 ** PAYMENT.assetDecimals;
  const refusals = Object.entries(PAYMENT_REFUSALS).map(([reason, words]) => `| \`${reason}\` | ${words} |`);
  return [
    '## Paid evaluation (x402)',
    '',
    `- \`POST /api/x402/analyze\` and the MCP tool \`evaluate_trade_paid\` evaluate at ${tierLabel(PAYMENT.tierGranted)} for ${PAYMENT.amountBaseUnits} base units (${price}) of the 6-decimal settlement stablecoin, an EIP-3009 \`TransferWithAuthorization\` valid ${PAYMENT.maxTimeoutSeconds} s, whatever the payer holds.`,
    `- The challenge (unspecified): HTTP 402 with \`{"x402Version": ${PAYMENT.x402Version}, "error", "accepts": [requirements]}\`. The requirements carry the stablecoin's EIP-712 \`name\` and \`version\` in \`extra\` and the Verdict's schema in \`outputSchema\`. \`PAYMENT-REQUIRED\` carries the same terms, base64-encoded, as an x402 v2 \`PaymentRequired\` (\`{"x402Version": 2, "error", "resource", "accepts": [{scheme, network, asset, amount, payTo, maxTimeoutSeconds, extra}]}\`), which stock v2 clients such as \`@x402/fetch\` read before the body and pay unmodified.`,
    `- The authorization's window is judged by chain time, the latest block's timestamp, as the token judges it: \`validAfter\` must be before it, \`validBefore\` at most \`maxTimeoutSeconds\` plus ${PAYMENT.clockSkewSeconds} s past it.`,
    '- The payment header (unspecified): `PAYMENT-SIGNATURE` (x402 v2, with `accepted`; what stock clients send) or `X-PAYMENT` (v1); both mean the same payment. Over MCP, `payment_proof` holds exactly what either header would carry. The receipt `{success, transaction, network, payer}` is in `PAYMENT-RESPONSE` and `X-PAYMENT-RESPONSE` (MCP: `payment_response`).',
    '- Order: the body is validated, the payment verified by the facilitator, the trade evaluated; the payment is settled only once the verdict is scored, and the audit record (naming payer, nonce, transaction, network, asset, amount and payee) is written before the verdict is sent. A 422, a 429 or an `error` verdict charges nothing.',
    `- One payment (payer and authorization nonce) buys one verdict: presented again with the same body within ${PAYMENT_REPLAY_MS / 3_600_000} hour it returns the saved verdict and receipt without a second settlement; with another body it is refused. Concurrent requests with one payment settle once across every instance sharing the store.`,
    '- A refusal is HTTP 402 with the challenge again, `reason` and `error`; a facilitator that does not answer is HTTP 503 `facilitator_unavailable` (no verdict, no charge), except that a settlement whose answer was lost is looked up on chain first.',
    '',
    '| reason | meaning |',
    '|---|---|',
    ...refusals,
    '',
  ].join('\n');
}
