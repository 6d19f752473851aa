// isSha256Hex answers as the regex it replaced: 64 lower-case hex digits and nothing else; sha256Buffer and partitionOf give
// OpenSSL's digest, byte for byte, as anyone recomputing a wallet's index key or chain with createHash would.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { partitionOf } from '../../../../src/audit/record/partition.js';
import { isSha256Hex, sha256Buffer, sha256Hex } from '../../../../src/audit/record/sha256.js';

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

describe('sha256Buffer', () => {
  it('is the SHA-256 digest of a string\'s UTF-8 bytes, or of the bytes given', () => {
    fc.assert(fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.uint8Array().map((bytes) => Buffer.from(bytes))), (input) => {
      assert.deepEqual(sha256Buffer(input), createHash('sha256').update(input).digest());
    }), { numRuns: 2_000 });
  });

  it('gives each call its own 32 bytes, which the next call does not change', () => {
    const first = sha256Buffer('0x00000000000000000000000000000000000000a1');
    const copy = Buffer.from(first);
    sha256Buffer('0x00000000000000000000000000000000000000b2');
    assert.equal(first.length, 32);
    assert.deepEqual(first, copy);
  });
});

describe('partitionOf', () => {
  it('is the first 4 bytes of SHA-256 over the lower-case wallet, big-endian, modulo K', () => {
    const wallet = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((bytes) => `0x${Buffer.from(bytes).toString('hex')}`);
    fc.assert(fc.property(wallet, fc.integer({ min: 2, max: 16 }), fc.boolean(), (address, k, upper) => {
      const given = upper ? address.toUpperCase().replace('0X', '0x') : address;
      assert.equal(partitionOf(given, k), createHash('sha256').update(address, 'utf8').digest().readUInt32BE(0) % k);
    }), { numRuns: 2_000 });
    assert.equal(partitionOf('0xAbC', 1), 0);
  });
});
