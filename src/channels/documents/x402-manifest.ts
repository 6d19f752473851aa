// The x402 manifest: what the REST endpoint and the MCP tool charge, in x402 v1's own requirement form.
import { PATHS, PAYMENT, SERVICE } from '../../catalogue/published-facts.js';
import { requirementsV1, type PaymentTerms } from '../../evaluation/paid/terms.js';

/** The paid channel as the composition root built it: terms when it takes payments, else why not. */
export interface PaidOffer {
  paid: { terms: PaymentTerms } | null;
  off: string | null;
}

export function x402Manifest(baseUrl: string, offer: PaidOffer): Record<string, unknown> {
  const terms = offer.paid?.terms ?? null;
  // The same requirements as the 402 challenge; with no terms nothing is offered, and no asset is guessed.
  const accepts = terms ? [requirementsV1(terms)] : [];
  const paidResources = [
    {
      type: 'http',
      method: 'POST',
      resource: `${baseUrl}${PATHS.x402Analyze}`,
      paymentHeader: PAYMENT.header,
      tierGranted: PAYMENT.tierGranted,
      accepts,
    },
    {
      type: 'mcp-tool',
      endpoint: `${baseUrl}${PATHS.mcp}`,
      tool: 'evaluate_trade_paid',
      proofArgument: 'payment_proof',
      tierGranted: PAYMENT.tierGranted,
      accepts,
    },
  ];
  return {
    x402Version: PAYMENT.x402Version,
    name: SERVICE.name,
    available: terms !== null,
    ...(terms ? {} : { unavailableReason: `the paid channel is off: ${offer.off ?? 'no payment terms are configured'}` }),
    resources: paidResources,
  };
}
