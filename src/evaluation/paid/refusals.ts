// Why a payment was refused: a stable reason, its words, and the facilitator's reasons mapped onto them.
import { PAYMENT_REFUSALS } from '../../catalogue/payment-refusals.js';

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
