// Reading a payment as clients send it: v1 and v2 envelopes to one v2 form, and what only the envelope can say.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import { readPayment, windowRefusal } from '../../../../src/evaluation/paid/payment-payload.js';
import { PAYMENT_REFUSALS } from '../../../../src/catalogue/payment-refusals.js';
import { facilitatorRefusal } from '../../../../src/evaluation/paid/refusals.js';
import { requirementsV2 } from '../../../../src/evaluation/paid/terms.js';
import { sampleTerms } from '../../../support/payment-terms.js';

const TERMS = sampleTerms('http://127.0.0.1:8080');

const AUTHORIZATION = {
  from: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  to: TERMS.payTo,
  value: '100000',
  validAfter: '0',
  validBefore: '1900000000',
  nonce: `0x${'ab'.repeat(32)}`,
};
const PAYLOAD = { signature: `0x${'11'.repeat(65)}`, authorization: AUTHORIZATION };

const encode = (value: unknown) => encodePaymentSignatureHeader(value as never);
const v1 = (patch: Record<string, unknown> = {}) => encode({ x402Version: 1, scheme: 'exact', network: 'eip155:4663', payload: PAYLOAD, ...patch });
const v2 = (accepted: Record<string, unknown> = {}) =>
  encode({ x402Version: 2, accepted: { ...requirementsV2(TERMS), ...accepted }, payload: PAYLOAD, resource: { url: TERMS.resource } });

function reasonOf(encoded: string): string {
  const read = readPayment(encoded, TERMS);
  return read.ok ? 'ok' : read.refusal.reason;
}

describe('readPayment', () => {
  it('reads v1 and v2 as the same payment in the v2 form the facilitator verifies, `accepted` being our terms', () => {
    const [one, two] = [readPayment(v1(), TERMS), readPayment(v2(), TERMS)];
    assert.ok(one.ok && two.ok);
    assert.deepEqual([one.payment.version, two.payment.version], [1, 2]);
    assert.deepEqual(one.payment.payload, two.payment.payload);
    assert.deepEqual(one.payment.payload, { x402Version: 2, resource: { url: TERMS.resource }, accepted: requirementsV2(TERMS), payload: PAYLOAD });
    assert.deepEqual(one.payment.authorization, AUTHORIZATION);
  });

  it('refuses what only the envelope says: version, scheme, network, and a v2 asset', () => {
    assert.equal(reasonOf(v1({ x402Version: 3 })), 'unsupported_version');
    assert.equal(reasonOf(v1({ scheme: 'upto' })), 'unsupported_scheme');
    assert.equal(reasonOf(v1({ network: 'base' })), 'wrong_network');
    assert.equal(reasonOf(v2({ network: 'eip155:1' })), 'wrong_network');
    assert.equal(reasonOf(v2({ asset: TERMS.payTo })), 'wrong_asset');
    assert.equal(reasonOf(v2({ asset: TERMS.asset.toLowerCase() })), 'ok', 'addresses compare without case');
  });

  it('leaves recipient, amount and validity to the library: they pass the envelope check', () => {
    const other = { ...AUTHORIZATION, to: AUTHORIZATION.from, value: '1', validBefore: '1' };
    assert.equal(reasonOf(v1({ payload: { ...PAYLOAD, authorization: other } })), 'ok');
  });

  it('refuses anything that is not a payment as malformed, never throwing', () => {
    const malformed = [
      '', 'not base64!', Buffer.from('{"x402Version":').toString('base64'), encode([1, 2]), encode('text'),
      v1({ payload: null }), v1({ payload: { ...PAYLOAD, signature: 'abc' } }), v2({}).replace(/./, 'A').slice(0, 12),
      v1({ payload: { ...PAYLOAD, authorization: { ...AUTHORIZATION, value: '-1' } } }),
      v1({ payload: { ...PAYLOAD, authorization: { ...AUTHORIZATION, value: 100000 } } }),
      v1({ payload: { ...PAYLOAD, authorization: { ...AUTHORIZATION, nonce: '0x12' } } }),
      v1({ payload: { ...PAYLOAD, authorization: { ...AUTHORIZATION, from: 'alice' } } }),
      encode({ x402Version: 2, payload: PAYLOAD }),
      'A'.repeat(20_000),
    ];
    for (const encoded of malformed) assert.equal(reasonOf(encoded), 'payment_malformed', encoded.slice(0, 40));
  });
});

describe('windowRefusal', () => {
  /** The latest block's timestamp: chain time, what EIP-3009 judges the window by. */
  const CHAIN_SECONDS = 1_800_000_000;
  const until = (validBefore: number) => windowRefusal({ ...AUTHORIZATION, validBefore: String(validBefore) }, 300, CHAIN_SECONDS);
  const after = (validAfter: number) => windowRefusal({ ...AUTHORIZATION, validAfter: String(validAfter), validBefore: '1800000300' }, 300, CHAIN_SECONDS);

  it('takes a validAfter only once the latest block is past it, as the token checks block.timestamp > validAfter', () => {
    assert.equal(after(0), null, 'what x402 v2 clients sign');
    assert.equal(after(1_800_000_000 - 600), null, 'what x402 v1 clients sign: now - 600');
    assert.equal(after(1_799_999_999), null);
    assert.deepEqual(after(1_800_000_000), {
      reason: 'authorization_not_yet_valid',
      message: 'authorization_not_yet_valid: the authorization\'s validAfter is not yet past by chain time (the latest block\'s timestamp) (validAfter "1800000000", the latest block is at 1800000000)',
    });
    assert.equal(after(1_800_003_600)?.reason, 'authorization_not_yet_valid');
  });

  it('takes a validBefore up to maxTimeoutSeconds plus 30 s of clock skew away, and nothing further', () => {
    assert.equal(until(1_800_000_300), null, 'what an x402 client signs: now + maxTimeoutSeconds');
    assert.equal(until(1_800_000_330), null);
    assert.deepEqual(until(1_800_000_331), {
      reason: 'authorization_window_too_long',
      message: 'authorization_window_too_long: the authorization\'s validBefore is further away than the challenge\'s maxTimeoutSeconds (plus 30 s of clock skew); sign one valid for at most that long (validBefore "1800000331", at most 1800000330)',
    });
    assert.equal(until(2_115_360_000)?.reason, 'authorization_window_too_long', 'ten years');
    assert.equal(windowRefusal({ ...AUTHORIZATION, validBefore: '9'.repeat(78) }, 300, CHAIN_SECONDS)?.reason, 'authorization_window_too_long');
  });

  it('refuses a validBefore the chain has passed, or will within 6 s, as authorization_expired, whatever the wall clock says', () => {
    assert.equal(until(1_800_000_006), null);
    assert.deepEqual(until(1_800_000_005), {
      reason: 'authorization_expired',
      message: 'authorization_expired: the authorization\'s validBefore has passed (or is less than 6 seconds away); sign a new one (validBefore "1800000005", the latest block is at 1800000000)',
    });
    assert.equal(until(0)?.reason, 'authorization_expired');
    // Signed by a wall clock two hours behind the chain: now + maxTimeoutSeconds there is long past here.
    assert.equal(until(1_800_000_000 - 7_200 + 300)?.reason, 'authorization_expired');
  });
});

describe('facilitatorRefusal', () => {
  it("maps @x402/evm's reasons onto ours and quotes the ones it does not know", () => {
    assert.equal(facilitatorRefusal('invalid_exact_evm_insufficient_balance', 'verify').reason, 'insufficient_funds');
    assert.equal(facilitatorRefusal('invalid_exact_evm_nonce_already_used', 'settle').reason, 'authorization_used');
    const unknown = facilitatorRefusal('something_new', 'verify');
    assert.deepEqual([unknown.reason, unknown.message.includes('something_new')], ['payment_invalid', true]);
    assert.equal(facilitatorRefusal(undefined, 'settle').reason, 'settlement_failed');
  });
});

describe('the refusal table of docs/x402.md', () => {
  it('lists every refusal reason the service can answer with', async () => {
    const { readFile } = await import('node:fs/promises');
    const section = await readFile(new URL('../../../../../docs/x402.md', import.meta.url), 'utf8');
    const listed = new Set([...section.matchAll(/^\| `([a-z_]+)`(?:, `([a-z_]+)`)? \|/gm)].flatMap((match) => [match[1], match[2]]).filter((name) => name && name !== 'reason'));
    assert.deepEqual([...listed].sort(), Object.keys(PAYMENT_REFUSALS).sort());
  });
});

describe('the methodology', () => {
  it('publishes the paid-evaluation decisions and every refusal reason', async () => {
    const { renderMethodology } = await import('../../../../src/channels/documents/methodology.js');
    const { loadConfig } = await import('../../../../src/config.js');
    const text = renderMethodology(loadConfig({}));
    assert.match(text, /## Paid evaluation \(x402\)/);
    assert.match(text, /100000 base units \(0\.1\)/);
    for (const reason of Object.keys(PAYMENT_REFUSALS)) assert.ok(text.includes(`| \`${reason}\` |`), reason);
  });
});
