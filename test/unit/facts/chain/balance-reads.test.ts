// The balance reader's call and answer coded by hand: which cell each read gets, and answers that do not fit.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { BALANCES_READER_CODE } from '../../../../src/facts/chain/balances-reader-code.js';
import { decodeBalanceAnswer, encodeBalanceCall, MAX_BALANCES_PER_CALL, MAX_HOLDERS_PER_CALL, MAX_TOKENS_PER_CALL, selectionWord } from '../../../../src/facts/chain/balance-reads.js';

const A = `0x${'a'.repeat(40)}`;
const B = `0x${'B'.repeat(40)}`;
const T1 = `0x${'1'.repeat(40)}`;
const T2 = `0x${'2'.repeat(40)}`;
const word = (n: bigint) => n.toString(16).padStart(64, '0');

describe('encodeBalanceCall', () => {
  it('names each token and holder once, selects per holder, and maps every read to its cell', () => {
    const call = encodeBalanceCall([
      { token: T2, holder: A }, { token: T1, holder: A }, { token: null, holder: B }, { token: T1, holder: B.toLowerCase() }, { token: T2, holder: A },
    ]);
    // Tokens T2 (0), T1 (1), native (2); A selects 0 and 1, B selects 1 and 2.
    assert.equal(call.count, 4);
    assert.deepEqual(call.cells, [0, 1, 3, 2, 0]);
    const args = call.data.slice(BALANCES_READER_CODE.length);
    assert.equal(args, [
      word(96n), word(96n + 4n * 32n), word(96n + 7n * 32n),
      word(3n), '0'.repeat(24) + '2'.repeat(40), '0'.repeat(24) + '1'.repeat(40), '0'.repeat(64),
      word(2n), '0'.repeat(24) + 'a'.repeat(40), '0'.repeat(24) + 'b'.repeat(40),
      word(2n), word(3n), word(6n),
    ].join(''));
  });

  it('refuses what is not an address, and more holders or balances than a call may read', () => {
    assert.throws(() => encodeBalanceCall([{ token: T1, holder: '0x1234' }]), /0x1234 is not an address/);
    const many = Array.from({ length: MAX_HOLDERS_PER_CALL + 1 }, (_, i) => ({ token: T1, holder: `0x${(i + 1).toString(16).padStart(40, '0')}` }));
    assert.throws(() => encodeBalanceCall(many), /at most 600 holders/);
    const twoTokens = many.slice(0, 351).flatMap((read) => [read, { ...read, token: T2 }]);
    assert.equal(twoTokens.length, MAX_BALANCES_PER_CALL + 2);
    assert.throws(() => encodeBalanceCall(twoTokens), /at most 700 balances/);
  });
});

describe('selectionWord', () => {
  it('is the 256-bit word with bit t set for each token index t, whatever their order or repeats', () => {
    fc.assert(fc.property(fc.array(fc.integer({ min: 0, max: MAX_TOKENS_PER_CALL - 1 }), { maxLength: 40 }), (indices) => {
      const mask = indices.reduce((bits, t) => bits | (1n << BigInt(t)), 0n);
      assert.equal(selectionWord(indices), word(mask));
    }));
    assert.equal(selectionWord([255, 0]), `8${'0'.repeat(62)}1`);
  });
});

describe('decodeBalanceAnswer', () => {
  const call = { count: 2, cells: [1, 0, 1] };

  it('gives each read its balance, or not read where the flag is 0', () => {
    assert.deepEqual(decodeBalanceAnswer(`0x0100${word(5n)}${word(2n ** 255n)}`, call), [{ ok: false }, { ok: true, value: 5n }, { ok: false }]);
    assert.deepEqual(decodeBalanceAnswer(`0x0101${word(5n)}${word(7n)}`, call), [{ ok: true, value: 7n }, { ok: true, value: 5n }, { ok: true, value: 7n }]);
  });

  it('throws on an answer of another length or a flag that is neither 0 nor 1', () => {
    assert.throws(() => decodeBalanceAnswer(`0x01${word(5n)}`, call), /answered 33 bytes for 2 balances/);
    assert.throws(() => decodeBalanceAnswer('0x', call), /answered 0 bytes/);
    assert.throws(() => decodeBalanceAnswer(`0x0102${word(5n)}${word(7n)}`, call), /the flag 02/);
  });
});
