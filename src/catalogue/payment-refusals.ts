// Why a paid call was refused: each stable reason and its words, published in docs/x402.md and the methodology.
import { PAYMENT } from './published-facts.js';

/** Every refusal is a 402 that carries the challenge again; docs/x402.md's refusal table lists these. */
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
