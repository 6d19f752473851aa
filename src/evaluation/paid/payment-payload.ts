// Reads a payment as a client sends it (v1 X-PAYMENT, v2 PAYMENT-SIGNATURE, or MCP payment_proof) into one v2 form.
import { decodePaymentSignatureHeader } from '@x402/core/http';
import { PAYMENT } from '../../catalogue/published-facts.js';
import type { PaymentPayload } from '@x402/core/types';
import { refusal, type Refusal } from './refusals.js';
import { requirementsV2, type PaymentTerms } from './terms.js';

/** The EIP-3009 authorization the payer signed; every field a string, as x402 sends them. */
export interface Authorization {
  from: string;
  to: string;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: string;
}

export interface ReadPayment {
  /** The wire version the client used (1 or 2); both mean the same payment. */
  version: 1 | 2;
  /** v2 form, `accepted` set to our own requirements: what the facilitator verifies and settles. */
  payload: PaymentPayload;
  /** One payment, whatever header carried it: the payer and its authorization nonce. */
  authorization: Authorization;
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const NONCE = /^0x[0-9a-fA-F]{64}$/;
const UINT = /^(0|[1-9][0-9]{0,77})$/;
const SIGNATURE = /^0x(?:[0-9a-fA-F]{2}){65,}$/;
/** A payload far beyond any signature, authorization and requirements is not a payment. */
const MAX_ENCODED_CHARS = 16_384;

/**
 * The published x402 v1 code knows only named networks and refuses `eip155:4663`, so a v1
 * payment is carried over to v2 here (DESIGN "x402"): same authorization and signature,
 * `accepted` our requirements. Fields the library checks against the requirements (recipient,
 * amount, expiry, signature) are left to it; what only the envelope says (version,
 * scheme, network, and for v2 the asset) is checked here.
 */
export function readPayment(encoded: string, terms: PaymentTerms): { ok: true; payment: ReadPayment } | { ok: false; refusal: Refusal } {
  const fail = (problem: Refusal) => ({ ok: false as const, refusal: problem });
  if (encoded.length > MAX_ENCODED_CHARS) return fail(refusal('payment_malformed', `over ${MAX_ENCODED_CHARS} characters`));
  let raw: unknown;
  try {
    raw = decodePaymentSignatureHeader(encoded.trim());
  } catch {
    return fail(refusal('payment_malformed'));
  }
  if (!isObject(raw)) return fail(refusal('payment_malformed'));
  if (raw.x402Version !== 1 && raw.x402Version !== 2) return fail(refusal('unsupported_version', `got ${short(raw.x402Version)}`));
  const envelope = raw.x402Version === 1 ? raw : raw.accepted;
  if (!isObject(envelope)) return fail(refusal('payment_malformed', 'a v2 payment needs `accepted`'));
  if (envelope.scheme !== 'exact') return fail(refusal('unsupported_scheme', `got ${short(envelope.scheme)}`));
  if (envelope.network !== terms.network) return fail(refusal('wrong_network', `got ${short(envelope.network)}, pay on ${terms.network}`));
  if (raw.x402Version === 2 && !sameAddress(envelope.asset, terms.asset)) {
    return fail(refusal('wrong_asset', `got ${short(envelope.asset)}, pay in ${terms.asset}`));
  }
  const inner = raw.payload;
  if (!isObject(inner) || typeof inner.signature !== 'string' || !SIGNATURE.test(inner.signature)) {
    return fail(refusal('payment_malformed', 'payload.signature must be a hex signature'));
  }
  const authorization = readAuthorization(inner.authorization);
  if (!authorization) return fail(refusal('payment_malformed', 'payload.authorization must hold from, to, value, validAfter, validBefore and nonce'));
  const payload: PaymentPayload = {
    x402Version: 2,
    resource: { url: terms.resource },
    accepted: requirementsV2(terms),
    payload: { signature: inner.signature, authorization: { ...authorization } },
  };
  return { ok: true, payment: { version: raw.x402Version, payload, authorization } };
}

/**
 * x402's exact scheme refuses a validBefore less than this far past its clock: a settlement must
 * still land in a block before the authorization lapses (docs/x402.md's "less than 6 s away").
 */
const EXPIRY_MARGIN_SECONDS = 6n;

/**
 * The authorization's window judged by chain time, `chainSeconds` being the latest block's timestamp
 * (ARCHITECTURE.md "Paid evaluation"): EIP-3009 takes it only in a block whose timestamp is past
 * validAfter and before validBefore, and the facilitator simulates the transfer against the latest
 * block, so one not yet valid, or already expired, there would fail as an unnamed revert
 * (`payment_invalid`, simulation failed) although the wall clock finds it valid. The challenge's
 * maxTimeoutSeconds bounds how long it stays spendable: x402's exact clients sign validBefore = now +
 * maxTimeoutSeconds, and its facilitator checks only that validBefore has not passed, so a validBefore
 * further away (a payment anyone holding it could settle for years) is refused.
 */
export function windowRefusal(authorization: Authorization, maxTimeoutSeconds: number, chainSeconds: number): Refusal | null {
  const now = BigInt(chainSeconds);
  if (BigInt(authorization.validAfter) >= now) {
    return refusal('authorization_not_yet_valid', `validAfter ${short(authorization.validAfter)}, the latest block is at ${now}`);
  }
  if (BigInt(authorization.validBefore) < now + EXPIRY_MARGIN_SECONDS) {
    return refusal('authorization_expired', `validBefore ${short(authorization.validBefore)}, the latest block is at ${now}`);
  }
  const latest = now + BigInt(maxTimeoutSeconds + PAYMENT.clockSkewSeconds);
  if (BigInt(authorization.validBefore) <= latest) return null;
  return refusal('authorization_window_too_long', `validBefore ${short(authorization.validBefore)}, at most ${latest}`);
}

function readAuthorization(value: unknown): Authorization | null {
  if (!isObject(value)) return null;
  const { from, to, value: amount, validAfter, validBefore, nonce } = value;
  const addresses = [from, to].every((item) => typeof item === 'string' && ADDRESS.test(item));
  const numbers = [amount, validAfter, validBefore].every((item) => typeof item === 'string' && UINT.test(item));
  if (!addresses || !numbers || typeof nonce !== 'string' || !NONCE.test(nonce)) return null;
  return { from, to, value: amount, validAfter, validBefore, nonce } as Authorization;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sameAddress(value: unknown, expected: string): boolean {
  return typeof value === 'string' && value.toLowerCase() === expected.toLowerCase();
}

/** A client's value quoted back, never more than a line. */
function short(value: unknown): string {
  const text = JSON.stringify(value) ?? 'nothing';
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
