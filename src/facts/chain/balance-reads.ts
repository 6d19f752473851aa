// Balances of many holders in one deployless eth_call of contracts/utils/BalancesReader.sol (ARCHITECTURE.md "Chain facts by block").
import type { Hex } from 'viem';
import { BALANCES_READER_CODE } from './balances-reader-code.js';
import { word } from './aggregate3.js';
import type { EthCaller } from './eth-caller.js';
import type { ReadResult } from './multicall.js';

/** One balance: of `token` (null: the native coin) held by `holder` (0x and 40 hex). */
export interface BalanceRead {
  token: string | null;
  holder: string;
}

/** Holders per call: each costs 64 bytes of calldata, so a call stays far below the 49,152-byte initcode limit (EIP-3860). */
export const MAX_HOLDERS_PER_CALL = 600;
/** Balances per call: the answer is returned as code is, 33 bytes a balance under EIP-170's 24,576. */
export const MAX_BALANCES_PER_CALL = 700;
/** Distinct tokens a call can select from: one bit each in a holder's selection word. */
export const MAX_TOKENS_PER_CALL = 256;

const WORD = 64;
const ZEROS = '0'.repeat(WORD);
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const NATIVE = '0'.repeat(40);
const HEX = '0123456789abcdef';

/** The call's arguments and, for each read, which cell of the answer holds it. */
export interface BalanceCall {
  data: Hex;
  /** Balances the answer holds. */
  count: number;
  /** For read i, the index of its cell (reads of the same balance share one). */
  cells: number[];
}

/**
 * The creation code with `(address[] tokens, address[] holders, uint256[] selected)`: tokens and
 * holders each once in the order first named, a holder's selection word with bit t set for every
 * token t read for it. The answer lists, holder by holder, the selected tokens in ascending index.
 */
export function encodeBalanceCall(reads: readonly BalanceRead[]): BalanceCall {
  const tokens = new Map<string, number>();
  const holders = new Map<string, number>();
  // Each holder's token indices, first named first; a bit set of up to 256 tokens is kept as this list, not a bigint.
  const chosen: number[][] = [];
  const bodies = new Map<string, string>();
  const picks = reads.map(({ token, holder }) => {
    const tokenText = token === null ? NATIVE : addressBody(token, bodies);
    const holderText = addressBody(holder, bodies);
    let t = tokens.get(tokenText);
    if (t === undefined) tokens.set(tokenText, (t = tokens.size));
    let h = holders.get(holderText);
    if (h === undefined) {
      holders.set(holderText, (h = holders.size));
      chosen.push([]);
    }
    if (!chosen[h].includes(t)) chosen[h].push(t);
    return [h, t] as const;
  });
  if (tokens.size > MAX_TOKENS_PER_CALL) throw new Error(`a balance call reads at most ${MAX_TOKENS_PER_CALL} tokens, not ${tokens.size}`);
  if (holders.size > MAX_HOLDERS_PER_CALL) throw new Error(`a balance call reads at most ${MAX_HOLDERS_PER_CALL} holders, not ${holders.size}`);
  if (reads.length > MAX_BALANCES_PER_CALL) throw new Error(`a balance call reads at most ${MAX_BALANCES_PER_CALL} balances, not ${reads.length}`);
  // Cell numbers: the holders in order, each one's selected tokens ascending.
  const firstCell: number[] = [];
  let count = 0;
  for (const list of chosen) {
    list.sort((a, b) => a - b);
    firstCell.push(count);
    count += list.length;
  }
  const cells = picks.map(([h, t]) => firstCell[h] + chosen[h].indexOf(t));
  const tokenWords = [...tokens.keys()].map((body) => ZEROS.slice(40) + body);
  const holderWords = [...holders.keys()].map((body) => ZEROS.slice(40) + body);
  const selectedWords = chosen.map(selectionWord);
  // Three dynamic arrays: three offsets, then each array as its length and its words.
  const tokensAt = 3 * 32;
  const holdersAt = tokensAt + 32 * (1 + tokenWords.length);
  const selectedAt = holdersAt + 32 * (1 + holderWords.length);
  const data = BALANCES_READER_CODE + word(tokensAt) + word(holdersAt) + word(selectedAt)
    + word(tokenWords.length) + tokenWords.join('')
    + word(holderWords.length) + holderWords.join('')
    + word(selectedWords.length) + selectedWords.join('');
  return { data: data as Hex, count, cells };
}

/** A holder's selection word: bit t set for each token index t, as 64 hex digits. */
export function selectionWord(tokenIndices: readonly number[]): string {
  const nibbles = new Array<number>(WORD).fill(0);
  for (const t of tokenIndices) nibbles[WORD - 1 - (t >> 2)] |= 1 << (t & 3);
  let text = '';
  for (const nibble of nibbles) text += HEX[nibble];
  return text;
}

/** The answer's balances, one per read as `cells` maps them; throws when the answer is not `count` balances and flags. */
export function decodeBalanceAnswer(answer: Hex, call: Pick<BalanceCall, 'count' | 'cells'>): ReadResult[] {
  const { count, cells } = call;
  if (answer.length !== 2 + count * (WORD + 2)) throw new Error(`the balance reader answered ${(answer.length - 2) / 2} bytes for ${count} balances`);
  // The flags first (a byte each), then the balances (a word each).
  const balancesAt = 2 + count * 2;
  return cells.map((cell) => {
    const flag = answer.slice(2 + cell * 2, 4 + cell * 2);
    if (flag === '00') return { ok: false };
    if (flag !== '01') throw new Error(`the balance reader answered the flag ${flag}`);
    return { ok: true, value: BigInt(`0x${answer.slice(balancesAt + cell * WORD, balancesAt + (cell + 1) * WORD)}`) };
  });
}

/** The reads as one eth_call at `block`; rejects with the node's own error, or when the answer does not fit. */
export async function callBalances(client: EthCaller, reads: readonly BalanceRead[], block: bigint | 'latest'): Promise<ReadResult[]> {
  const call = encodeBalanceCall(reads);
  // No `to`: the node runs the creation code and answers what the constructor returns.
  const answer = await client.request({ method: 'eth_call', params: [{ data: call.data }, block === 'latest' ? block : `0x${block.toString(16)}`] });
  return decodeBalanceAnswer(answer, call);
}

/** The address's 40 hex digits in lower case, each address checked once per call (a holder is named once per token). */
function addressBody(address: string, known: Map<string, string>): string {
  let body = known.get(address);
  if (body === undefined) {
    if (!ADDRESS.test(address)) throw new Error(`${address} is not an address`);
    known.set(address, (body = address.slice(2).toLowerCase()));
  }
  return body;
}

