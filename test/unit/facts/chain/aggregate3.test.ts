// The hand-coded aggregate3 calldata and results agree with viem's general ABI coder, and refuse what does not fit.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decodeFunctionResult, encodeAbiParameters, encodeFunctionData, type Hex } from 'viem';
import { decodeAggregate3, encodeAggregate3 } from '../../../../src/facts/chain/aggregate3.js';
import { multicall3Abi } from '../../../../src/facts/chain/multicall.js';

const bytes = (max: number) => fc.uint8Array({ maxLength: max }).map((array) => `0x${Buffer.from(array).toString('hex')}` as Hex);
const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((array) => `0x${Buffer.from(array).toString('hex')}` as Hex);
const RESULT_TYPE = [{ type: 'tuple[]', components: [{ name: 'success', type: 'bool' }, { name: 'returnData', type: 'bytes' }] }] as const;

describe('aggregate3 coded by hand', () => {
  it('encodes the calldata viem encodes, byte for byte', () => {
    fc.assert(fc.property(fc.array(fc.record({ target: address, callData: bytes(100) }), { maxLength: 20 }), (calls) => {
      const viem = encodeFunctionData({
        abi: multicall3Abi, functionName: 'aggregate3', args: [calls.map((call) => ({ target: call.target, allowFailure: true, callData: call.callData }))],
      });
      assert.equal(encodeAggregate3(calls), viem);
    }));
  });

  it('decodes the results viem decodes', () => {
    fc.assert(fc.property(fc.array(fc.record({ success: fc.boolean(), returnData: bytes(100) }), { maxLength: 20 }), (results) => {
      const data = encodeAbiParameters(RESULT_TYPE, [results]);
      assert.deepEqual(decodeAggregate3(data), decodeFunctionResult({ abi: multicall3Abi, functionName: 'aggregate3', data }));
      assert.deepEqual(decodeAggregate3(data), results.map((result) => ({ ...result })));
    }));
  });

  it('refuses results cut short, with an offset past the end, or a bool that is not 0 or 1', () => {
    const data = encodeAbiParameters(RESULT_TYPE, [[{ success: true, returnData: '0x1234' }]]);
    assert.throws(() => decodeAggregate3(data.slice(0, -64) as Hex), /cut short/);
    assert.throws(() => decodeAggregate3(`0x${'f'.repeat(64)}${data.slice(66)}` as Hex), /impossible offset/);
    const badBool = `${data.slice(0, 2 + 64 * 3)}${'0'.repeat(63)}2${data.slice(2 + 64 * 4)}` as Hex;
    assert.throws(() => decodeAggregate3(badBool), /neither 0 nor 1/);
    assert.throws(() => decodeAggregate3('0x' as Hex), /cut short/);
  });

  it('refuses a target that is not an address and call data that is not whole bytes', () => {
    assert.throws(() => encodeAggregate3([{ target: '0x1234', callData: '0x' }]), /not an address/);
    assert.throws(() => encodeAggregate3([{ target: `0x${'1'.repeat(40)}`, callData: '0x123' }]), /whole bytes/);
  });
});
