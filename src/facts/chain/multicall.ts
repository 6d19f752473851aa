// Many contract reads in one eth_call through Multicall3's aggregate3, with per-read failures kept apart.
import { decodeFunctionResult, encodeFunctionData, erc20Abi, parseAbi, type Abi, type Address, type Hex, type PublicClient } from 'viem';
import { decodeAggregate3, encodeAggregate3 } from './aggregate3.js';
import type { EthCaller } from './eth-caller.js';
import type { BalanceRead } from './balance-reads.js';
import { ChainUnavailableError } from './errors.js';

export const multicall3Abi = parseAbi([
  'struct Call3 { address target; bool allowFailure; bytes callData; }',
  'struct Result { bool success; bytes returnData; }',
  'function aggregate3(Call3[] calls) payable returns (Result[] returnData)',
  'function getCurrentBlockTimestamp() view returns (uint256 timestamp)',
  'function getBlockNumber() view returns (uint256 blockNumber)',
  'function getBasefee() view returns (uint256 basefee)',
  'function getEthBalance(address addr) view returns (uint256 balance)',
]);

export interface ContractRead {
  address: Address;
  abi: Abi;
  functionName: string;
  args?: readonly unknown[];
  /** The call already encoded, with its own decoder: hot reads skip viem's general ABI coder. */
  encoded?: { callData: Hex; decode: (returnData: Hex) => unknown };
  /** A balance: the read batcher sends these through the deployless balance reader (balance-reads.ts). */
  balance?: BalanceRead;
}

const BALANCE_OF = '0x70a08231';

/**
 * ERC-20 `balanceOf(holder)` encoded by hand: the selector and the address padded to a word,
 * decoded as one uint256. Per wallet and token this is the read a burst of new wallets makes.
 */
export function balanceOfRead(token: Address, holder: string): ContractRead {
  const callData = `${BALANCE_OF}${'0'.repeat(24)}${holder.slice(2).toLowerCase()}` as Hex;
  return { address: token, abi: erc20Abi, functionName: 'balanceOf', args: [holder], encoded: { callData, decode: decodeUint256 }, balance: { token, holder } };
}

/** The holder's native balance, as Multicall3's getEthBalance reads it. */
export function nativeBalanceRead(multicall3: Address, holder: string): ContractRead {
  return { address: multicall3, abi: multicall3Abi, functionName: 'getEthBalance', args: [holder], balance: { token: null, holder } };
}

function decodeUint256(returnData: Hex): bigint {
  if (returnData.length !== 66) throw new Error('not one word');
  return BigInt(returnData);
}

/** A read that reverted or returned undecodable data is `ok: false`; only the node failing rejects. */
export type ReadResult = { ok: true; value: unknown } | { ok: false };

/**
 * One RPC request whatever the number of reads. Rejects with ChainUnavailableError when the
 * node (or Multicall3 itself) fails, so callers fail closed instead of reading "no data".
 */
export async function readMany(client: PublicClient, multicall3: Address, reads: readonly ContractRead[], what: string): Promise<ReadResult[]> {
  try {
    return await callAggregate3(client, multicall3, reads, 'latest');
  } catch (error) {
    throw new ChainUnavailableError(what, error);
  }
}

/**
 * The reads as one aggregate3 eth_call at `block`, coded by hand (aggregate3.ts). Rejects with
 * the node's own error, or when Multicall3 answers another number of results; callers say what failed.
 */
export async function callAggregate3(client: EthCaller, multicall3: Address, reads: readonly ContractRead[], block: bigint | 'latest'): Promise<ReadResult[]> {
  const calls = reads.map((read) => ({ target: read.address, callData: encodeRead(read) }));
  // aggregate3 is payable, so it goes as a plain eth_call, built here and sent as it is (by viem's client or ethCaller).
  const data = await client.request({
    method: 'eth_call',
    params: [{ to: multicall3, data: encodeAggregate3(calls) }, block === 'latest' ? block : `0x${block.toString(16)}`],
  });
  const results = decodeAggregate3(data);
  if (results.length !== reads.length) throw new Error('Multicall3 answered the wrong number of results');
  return results.map((result, index) => decodeRead(reads[index], result));
}

function encodeRead(read: ContractRead): Hex {
  if (read.encoded) return read.encoded.callData;
  return encodeFunctionData({ abi: read.abi, functionName: read.functionName, args: read.args ?? [] } as never);
}

/** One aggregate3 result decoded for its read; a revert or undecodable data is `ok: false`. */
function decodeRead(read: ContractRead, result: { success: boolean; returnData: Hex }): ReadResult {
  if (!result.success || result.returnData === '0x') return { ok: false };
  try {
    if (read.encoded) return { ok: true, value: read.encoded.decode(result.returnData) };
    const value = decodeFunctionResult({ abi: read.abi, functionName: read.functionName, data: result.returnData } as never);
    return { ok: true, value };
  } catch {
    return { ok: false };
  }
}
