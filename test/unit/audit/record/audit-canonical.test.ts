// The fast canonical writer for audit records produces exactly the bytes of the RFC 8785 library.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { canonicalJson, fastCanonicalJson, type AuditRecordBody } from '../../../../src/audit/record/record.js';
import { canonicalText } from '../../../../src/evaluation/recorded-facts.js';

const scalar = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.string(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(1e21, 1e-7, 5e-324, -0, 0.1, 123456789012345680000),
);

const hash = fc.stringMatching(/^[0-9a-f]{64}$/);

const body: fc.Arbitrary<AuditRecordBody> = fc.record({
  seq: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  ts: fc.integer({ min: 0, max: 4_102_444_800_000 }),
  wallet: fc.string({ unit: 'binary' }),
  channel: fc.constantFrom('free', 'demo', 'rest', 'mcp', 'x402', 'a2a'),
  request: fc.dictionary(fc.string({ unit: 'binary' }), scalar, { maxKeys: 12 }),
  decision: fc.constantFrom('allow', 'warn', 'deny'),
  risk_score: fc.integer({ min: 0, max: 100 }),
  reasons: fc.array(fc.string({ unit: 'binary' }), { maxLength: 6 }),
  tier: fc.integer({ min: 1, max: 3 }),
  price_usd: fc.double({ noNaN: true, noDefaultInfinity: true }),
  price_source: fc.constantFrom('oracle', 'venue_v4', 'fallback_default', 'unavailable'),
  prev_hash: hash,
  wallet_prev_hash: hash,
}).chain((record) => fc.option(hash, { nil: undefined }).map((factsHash) => (
  // Format 2 records carry the hash of their facts; format 1 records have neither field.
  factsHash === undefined ? record : { ...record, facts_hash: factsHash, format: 2 }
))) as fc.Arbitrary<AuditRecordBody>;

/** The library's verdict: its text, or the fact that it refuses the value. */
function reference(value: AuditRecordBody): string | 'refused' {
  try {
    return canonicalize(value) ?? 'refused';
  } catch {
    return 'refused';
  }
}

describe('fast canonical audit JSON', () => {
  it('equals the canonicalize library whenever it answers, and refuses only what the library refuses', () => {
    fc.assert(
      fc.property(body, (value) => {
        const fast = fastCanonicalJson(value);
        const expected = reference(value);
        if (fast !== null) assert.equal(fast, expected);
        let actual: string | 'refused';
        try {
          actual = canonicalJson(value);
        } catch {
          actual = 'refused';
        }
        assert.equal(actual, expected);
      }),
      { numRuns: 3000 },
    );
  });

  it('takes the fast path for an evaluation record and hands nested requests to the library', () => {
    const value = {
      seq: 1, ts: 2, wallet: '0xab', channel: 'free', decision: 'allow', risk_score: 8, tier: 1,
      request: { wallet: '0xab', amount: 1.5, side: 'buy', deadline: null, allow_unregistered: false },
      reasons: ['PRICE_FALLBACK_DEFAULT: x'], price_usd: 350.25, price_source: 'fallback_default',
      prev_hash: '0'.repeat(64), wallet_prev_hash: '0'.repeat(64),
    } as AuditRecordBody;
    assert.equal(fastCanonicalJson(value), canonicalize(value));
    const escaped = { ...value, request: JSON.parse('{"10":"a\\"b\\\\c\\n","__proto__":"x","é":1e21,"2":true}') } as unknown as AuditRecordBody;
    assert.equal(fastCanonicalJson(escaped), canonicalize(escaped));
    assert.notEqual(fastCanonicalJson(escaped), null, "escapes and integer-like keys stay on the fast path");
    const nested = { ...value, request: { inner: { b: 1, a: 2 } } } as unknown as AuditRecordBody;
    assert.equal(fastCanonicalJson(nested), null);
    assert.equal(canonicalJson(nested), canonicalize(nested));
  });
});

describe('canonical facts text', () => {
  const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.string(), fc.string({ unit: 'binary-ascii' }), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.boolean(), fc.constant(null),
      fc.array(tie('value'), { maxLength: 5 }),
      fc.dictionary(fc.string(), tie('value'), { maxKeys: 6 }),
    ),
  })).value;

  it('equals the canonicalize library on any JSON value', () => {
    fc.assert(fc.property(json, (value) => {
      assert.equal(canonicalText(value), canonicalize(value));
    }), { numRuns: 3000 });
  });

  it('writes a deeply frozen value the same each time it meets it, remembered or not', () => {
    fc.assert(fc.property(json, (value) => {
      const frozen = deepFreeze(structuredClone(value));
      assert.equal(canonicalText(frozen), canonicalize(value));
      assert.equal(canonicalText({ again: frozen }), canonicalize({ again: value }));
    }), { numRuns: 1000 });
  });

  it('never remembers a frozen object whose members can still change', () => {
    const inner = { price: 1 };
    const outer = Object.freeze({ inner });
    assert.equal(canonicalText(outer), '{"inner":{"price":1}}');
    inner.price = 2;
    assert.equal(canonicalText(outer), '{"inner":{"price":2}}');
  });
});

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}
