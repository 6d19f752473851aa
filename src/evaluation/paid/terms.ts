// The paid channel's terms in x402's wire forms: v1 requirements for the challenge body, v2 for its header and the facilitator.
import type { PaymentRequired, PaymentRequirements, PaymentRequirementsV1 } from '@x402/core/types';
import { PAYMENT, tierLabel } from '../../catalogue/published-facts.js';
import { TradeRequest, Verdict } from '../../schemas/trade.js';

/** What one paid evaluation costs and where the money goes; built once at start (app.ts). */
export interface PaymentTerms {
  /** CAIP-2, e.g. `eip155:4663`. */
  network: `${string}:${string}`;
  /** The EIP-3009 settlement stablecoin. */
  asset: string;
  /** Base units, exactly what the authorization must carry. */
  amount: string;
  payTo: string;
  /** Absolute URL of the paid REST endpoint. */
  resource: string;
  maxTimeoutSeconds: number;
  /** The stablecoin's EIP-712 domain, read from the token, so clients sign without a lookup. */
  eip712: { name: string; version: string };
}

export const PAID_DESCRIPTION = `One pre-trade risk evaluation at ${tierLabel(PAYMENT.tierGranted)}, whatever the payer's holdings`;

/**
 * The v1 requirements the 402 challenge lists (spec "x402 payment"). `outputSchema` says what
 * the payment buys: the TradeRequest to POST and the Verdict that comes back.
 */
export function requirementsV1(terms: PaymentTerms): PaymentRequirementsV1 {
  return {
    scheme: PAYMENT.scheme,
    network: terms.network,
    maxAmountRequired: terms.amount,
    resource: terms.resource,
    description: PAID_DESCRIPTION,
    mimeType: 'application/json',
    outputSchema: {
      input: { type: 'http', method: 'POST', bodyType: 'json', bodyFields: plainSchema(TradeRequest) },
      output: plainSchema(Verdict),
    },
    payTo: terms.payTo,
    maxTimeoutSeconds: terms.maxTimeoutSeconds,
    asset: terms.asset,
    extra: { ...terms.eip712 },
  };
}

/** The same terms in the v2 shape the x402 libraries verify and settle against. */
export function requirementsV2(terms: PaymentTerms): PaymentRequirements {
  return {
    scheme: PAYMENT.scheme,
    network: terms.network,
    asset: terms.asset,
    amount: terms.amount,
    payTo: terms.payTo,
    maxTimeoutSeconds: terms.maxTimeoutSeconds,
    extra: { ...terms.eip712 },
  };
}

/** The REST 402 body: the spec's v1 envelope. The PAYMENT-REQUIRED header carries `paymentRequiredV2`. */
export function challengeBody(terms: PaymentTerms, error: string, reason?: string) {
  return { x402Version: PAYMENT.x402Version, error, ...(reason ? { reason } : {}), accepts: [requirementsV1(terms)] };
}

/**
 * The same terms as a true x402 v2 `PaymentRequired`, for the PAYMENT-REQUIRED header (ARCHITECTURE.md
 * "Paid evaluation"): stock v2 clients read that header before the body, and their v1 code refuses
 * `eip155:4663`, so with the v1 object there no published client could pay.
 */
export function paymentRequiredV2(terms: PaymentTerms, error: string): PaymentRequired {
  return {
    x402Version: 2,
    error,
    resource: { url: terms.resource, description: PAID_DESCRIPTION, mimeType: 'application/json' },
    accepts: [requirementsV2(terms)],
  };
}

/** The MCP challenge: the spec's fields, plus the EIP-712 domain and x402 version a signer needs. */
export function mcpChallenge(terms: PaymentTerms) {
  return {
    status: 'payment_required' as const,
    network: terms.network,
    asset: terms.asset,
    amount: terms.amount,
    pay_to: terms.payTo,
    resource: terms.resource,
    description: PAID_DESCRIPTION,
    max_timeout_seconds: terms.maxTimeoutSeconds,
    tier_granted: PAYMENT.tierGranted,
    extra: { ...terms.eip712 },
    x402_version: PAYMENT.x402Version,
  };
}

/** A TypeBox schema as plain JSON Schema (its symbol-keyed metadata dropped). */
function plainSchema(schema: object): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}
