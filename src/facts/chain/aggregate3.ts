// Multicall3 aggregate3 calldata and results coded by hand: the one ABI shape every batched read goes through, without viem's general coder (its cost grows with every read in a burst).
import type { Hex } from 'viem';

export interface Call3 {
  target: string;
  callData: Hex;
}

export interface Result3 {
  success: boolean;
  returnData: Hex;
}

/** keccak256("aggregate3((address,bool,bytes)[])")[0..4] */
const AGGREGATE3 = '82ad56cb';
const WORD = 64;

/**
 * `aggregate3(calls)` with every call allowing failure, in the ABI's layout: the array's offset,
 * its length, one offset per tuple (from the start of the offsets), then each tuple as target,
 * `true`, the offset of its bytes (0x60), their length and the bytes padded to whole words.
 */
export function encodeAggregate3(calls: readonly Call3[]): Hex {
  const parts: string[] = ['0x', AGGREGATE3, word(32), word(calls.length)];
  const tuples: string[] = [];
  let offset = calls.length * 32;
  for (const call of calls) {
    const data = call.callData.slice(2);
    if (data.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(data)) throw new Error('call data is not whole bytes of hex');
    const target = call.target.slice(2).toLowerCase();
    if (target.length !== 40 || !/^[0-9a-f]{40}$/.test(target)) throw new Error(`${call.target} is not an address`);
    const padded = data.padEnd(Math.ceil(data.length / WORD) * WORD, '0');
    parts.push(word(offset));
    tuples.push(target.padStart(WORD, '0'), word(1), word(96), word(data.length / 2), padded);
    offset += 128 + padded.length / 2;
  }
  return parts.concat(tuples).join('') as Hex;
}

/** The `(bool success, bytes returnData)[]` aggregate3 returns; throws on anything that does not fit that layout. */
export function decodeAggregate3(data: Hex): Result3[] {
  const hex = data.slice(2);
  const at = (byte: number): number => {
    const text = hex.slice(byte * 2, byte * 2 + WORD);
    if (text.length !== WORD) throw new Error('aggregate3 result is cut short');
    const value = Number.parseInt(text, 16);
    if (!Number.isSafeInteger(value) || value > hex.length) throw new Error('aggregate3 result has an impossible offset or length');
    return value;
  };
  const array = at(0);
  const count = at(array);
  const first = array + 32;
  const results: Result3[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const tuple = first + at(first + i * 32);
    const success = at(tuple);
    if (success > 1) throw new Error('aggregate3 result has a bool that is neither 0 nor 1');
    const bytes = tuple + at(tuple + 32);
    const length = at(bytes);
    const start = (bytes + 32) * 2;
    if (start + length * 2 > hex.length) throw new Error('aggregate3 result is cut short');
    results[i] = { success: success === 1, returnData: `0x${hex.slice(start, start + length * 2)}` as Hex };
  }
  return results;
}

/** A small whole number (an offset, a length, a count) as one ABI word: 64 hex digits. */
export function word(value: number): string {
  return value.toString(16).padStart(WORD, '0');
}
