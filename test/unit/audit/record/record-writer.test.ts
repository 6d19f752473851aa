// The record writers generated from the layout (src/audit/record/record-writer.ts) write the RFC 8785 library's bytes
// for every unpaid record, and hand back only what the library cannot write either.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { fastCanonicalJson, type AuditRecordBody } from '../../../../src/audit/record/record.js';

/** Numbers RFC 8785 section 3.2.2.3 writes in ways a hand-written writer gets wrong: exponents, -0, tiny and huge. */
const oddNumber = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(1e21, 1e20, 1e-7, 1e-6, 5e-324, -0, 0.1, 0.3, -1.5e300, 123456789012345680000, Number.MAX_SAFE_INTEGER),
);

/** Strings with quotes, backslashes, controls, DEL, non-ASCII, paired surrogates (emoji), and none of those. */
const oddString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('', '"', '\\', '\u0000', '\u001f', '\u007f', '\u2028', 'é', '😀', 'a"b\\c\n\t'),
);

/** A string with no UTF-16 surrogate: the writers must answer for every record made of these. */
const plainString = fc.string({ unit: fc.integer({ min: 0, max: 0xd7ff }).map((code) => String.fromCharCode(code)) });

const scalar = (text: fc.Arbitrary<string>) => fc.oneof(text, oddNumber, fc.boolean(), fc.constant(null));
const hash = fc.stringMatching(/^[0-9a-f]{64}$/);

function record(text: fc.Arbitrary<string>): fc.Arbitrary<AuditRecordBody> {
  return fc.record({
    seq: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
    ts: fc.integer({ min: 0, max: 4_102_444_800_000 }),
    wallet: text,
    channel: text,
    // The request is whatever object the caller sent: any keys, in any order, integer-like and `__proto__` included.
    request: fc.dictionary(fc.oneof(text, fc.constantFrom('10', '2', '__proto__', 'constructor', '')), scalar(text), { maxKeys: 12 }),
    decision: text,
    risk_score: oddNumber,
    reasons: fc.array(text, { maxLength: 6 }),
    tier: oddNumber,
    price_usd: oddNumber,
    price_source: text,
    prev_hash: hash,
    wallet_prev_hash: hash,
  }).chain((body) => fc.tuple(fc.constantFrom(1, 2, 3), hash, hash).map(([format, factsHash, outcomeHash]) => {
    if (format === 1) return body;
    if (format === 2) return { ...body, facts_hash: factsHash, format: 2 };
    // Format 3 names its outcome by hash instead of holding it (layout.ts).
    const { reasons: _r, price_usd: _u, price_source: _s, ...rest } = body;
    return { ...rest, facts_hash: factsHash, format: 3, outcome_hash: outcomeHash };
  })) as fc.Arbitrary<AuditRecordBody>;
}

function library(value: AuditRecordBody): string | 'refused' {
  try {
    return canonicalize(value) ?? 'refused';
  } catch {
    return 'refused';
  }
}

describe('the record writers generated from the layout', () => {
  it('write exactly the canonicalize library\'s bytes for every record without surrogates, of each format', () => {
    fc.assert(fc.property(record(plainString), (value) => {
      const written = fastCanonicalJson(value);
      assert.notEqual(written, null, 'a record without surrogates or a payment is written by the generated writer');
      assert.equal(written, library(value));
    }), { numRuns: 5000 });
  });

  it('agree with the library on odd strings (surrogates, controls, quotes) and hand back only what they leave to it', () => {
    fc.assert(fc.property(record(oddString), (value) => {
      const written = fastCanonicalJson(value);
      if (written !== null) assert.equal(written, library(value));
    }), { numRuns: 5000 });
    // A lone surrogate has no RFC 8785 form: the writer hands it on, and the library refuses it.
    const lone = { ...fc.sample(record(plainString), { numRuns: 1, seed: 1 })[0], wallet: '\ud800' } as AuditRecordBody;
    assert.equal(fastCanonicalJson(lone), null);
    assert.equal(library(lone), 'refused');
  });

  it('hand back a record with a non-finite number or a mismatched facts pair, which the layout has no bytes for', () => {
    const base = fc.sample(record(plainString), { numRuns: 1, seed: 2 })[0];
    assert.equal(fastCanonicalJson({ ...base, price_usd: Number.NaN }), null);
    assert.equal(fastCanonicalJson({ ...base, risk_score: Number.POSITIVE_INFINITY }), null);
    assert.equal(fastCanonicalJson({ ...base, facts_hash: '0'.repeat(64), format: undefined } as AuditRecordBody), null);
    // A format 3 record holding its outcome too, or a format 2 one naming an outcome, is no format's shape.
    assert.equal(fastCanonicalJson({ ...base, facts_hash: '0'.repeat(64), format: 3, outcome_hash: '1'.repeat(64), reasons: [] } as AuditRecordBody), null);
    assert.equal(fastCanonicalJson({ ...base, facts_hash: '0'.repeat(64), format: 2, outcome_hash: '1'.repeat(64) } as AuditRecordBody), null);
  });
});
