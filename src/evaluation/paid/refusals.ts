// Why a payment was refused: a stable reason, its words, and the facilitator's reasons mapped onto them.
import { PAYMENT } from '../../catalogue/published-facts.js';

/** Every refusal is a 402 that carries the challenge again; the README's refusal table lists these. */
export const PAYMENT_REFUSALS = {
  payment_malformed: 'the payment is not base64-encoded JSON of an x402 payment payload (x402Version, scheme, network, payload.signature, payload.authorization)',
  unsupported_version: 'x402Version must be 1 (X-PAYMENT) or 2 (PAYMENT-SIGNATURE)',
  unsupported_scheme: "the payment scheme must be 'exact'",
  wrong_network: 'the payment is for another network than the one the challenge names',
  wrong_asset: 'the payment is in another asset than the settlement stablecoin the challenge names',
  wrong_recipient: 'the authorization pays another address than the challenge\'s payTo',
  wrong_amount: 'the authorization\'s value is not exactly the amount the challenge requires',
  authorization_expired: 'the authorization\'s validBefore has passed (or is less than 6 seconds away); sign a new one',
  authorization_not_yet_valid: 'the authorization\'s validAfter is not yet past by chain time (the latest block\'s timestamp)',
  authorization_window_too_long: `the authorization's validBefore is further away than the challenge's maxTimeoutSeconds (plus ${PAYMENT.clockSkewSeconds} s of clock skew); sign one valid for at most that long`,
  invalid_signature: 'the EIP-712 signature does not recover to the payer for this token, chain and authorization',
  insufficient_funds: 'the payer does not hold the amount in the settlement stablecoin',
  authorization_used: 'this authorization nonce was already used on chain; sign a new one',
  payment_used: 'this payment already bought a verdict for a different request; a payment buys one verdict, sign a new one',
  payment_in_progress: 'this payment is still being settled for this request; retry with the same payment to receive its verdict',
  payment_invalid: 'the facilitator refused the payment',
  settlement_failed: 'the payment passed verification but did not settle on chain; nothing was charged and no verdict was released',
} as const;

export type RefusalReason = keyof typeof PAYMENT_REFUSALS;

/**
 * `invalidReason` / `errorReason` values of `@x402/evm`'s exact scheme (its `Err*` constants)
 * mapped onto ours; anything else is `payment_invalid` with the facilitator's reason quoted.
 */
const FACILITATOR_REASONS: Readonly<Record<string, RefusalReason>> = {
  invalid_exact_evm_scheme: 'unsupported_scheme',
  invalid_exact_evm_network_mismatch: 'wrong_network',
  invalid_exact_evm_recipient_mismatch: 'wrong_recipient',
  invalid_exact_evm_authorization_value: 'wrong_amount',
  invalid_exact_evm_payload_authorization_value_mismatch: 'wrong_amount',
  invalid_exact_evm_payload_authorization_valid_before: 'authorization_expired',
  invalid_exact_evm_payload_authorization_valid_after: 'authorization_not_yet_valid',
  invalid_exact_evm_signature: 'invalid_signature',
  invalid_exact_evm_failed_to_parse_signature: 'invalid_signature',
  invalid_exact_evm_token_name_mismatch: 'invalid_signature',
  invalid_exact_evm_token_version_mismatch: 'invalid_signature',
  invalid_exact_evm_insufficient_balance: 'insufficient_funds',
  invalid_exact_evm_nonce_already_used: 'authorization_used',
};

export interface Refusal {
  reason: RefusalReason;
  /** The words a client reads in the 402's `error`. */
  message: string;
}

export function refusal(reason: RefusalReason, detail?: string): Refusal {
  return { reason, message: detail ? `${reason}: ${PAYMENT_REFUSALS[reason]} (${detail})` : `${reason}: ${PAYMENT_REFUSALS[reason]}` };
}

/** A facilitator's refusal in our terms; `stage` says whether verification or settlement said no. */
export function facilitatorRefusal(facilitatorReason: string | undefined, stage: 'verify' | 'settle'): Refusal {
  const known = facilitatorReason ? FACILITATOR_REASONS[facilitatorReason] : undefined;
  if (known) return refusal(known);
  const fallback = stage === 'settle' ? 'settlement_failed' : 'payment_invalid';
  return refusal(fallback, `facilitator reason: ${facilitatorReason ?? 'none given'}`);
}
