// isSha256Hex answers as the regex it replaced: 64 lower-case hex digits and nothing else.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isSha256Hex, sha256Hex } from '../../../../src/audit/record/sha256.js';

const REGEX = /^[0-9a-f]{64}$/;

describe('isSha256Hex', () => {
  it('agrees with /^[0-9a-f]{64}$/ for any text, hex-like or not', () => {
    const digest = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 });
    // A digest with one character changed to a near miss: upper case, a letter past f, a space, an Arabic-Indic digit.
    const nearMiss = fc.tuple(digest, fc.nat(63), fc.constantFrom(...'0aFg \u00e9\u0660')).map(([hex, at, char]) => hex.slice(0, at) + char + hex.slice(at + 1));
    const lengths = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 62, maxLength: 66 });
    fc.assert(fc.property(fc.oneof(digest, nearMiss, lengths, fc.string(), fc.string({ unit: 'binary' })), (text) => {
      assert.equal(isSha256Hex(text), REGEX.test(text));
    }), { numRuns: 20_000 });
  });

  it('takes a digest and refuses one in upper case, cut short or with a newline', () => {
    const digest = sha256Hex('x');
    assert.equal(isSha256Hex(digest), true);
    assert.equal(isSha256Hex(digest.toUpperCase()), false);
    assert.equal(isSha256Hex(digest.slice(1)), false);
    assert.equal(isSha256Hex(`${digest.slice(1)}\n`), false);
  });
});
