// Real holders of a token, found in its recent Transfer logs: who a buyer without a pool would get tokens from.
import { getAddress, parseAbiItem, zeroAddress, type Address, type PublicClient } from 'viem';

const transferEvent = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

export interface RecentHolder {
  holder: Address;
  /** The value of the newest transfer it received: a floor guess of what it can send on. */
  received: bigint;
}

/** How far back the logs are read once the chain's head is known; the whole chain before that. */
export const HOLDER_LOOKBACK_BLOCKS = 50_000n;
const MAX_HOLDERS = 3;

/** The first block a token's logs are read from: HOLDER_LOOKBACK_BLOCKS before the newest head seen, else the chain's start. */
export function logsFrom(head: bigint | null): bigint | 'earliest' {
  return head === null ? 'earliest' : head > HOLDER_LOOKBACK_BLOCKS ? head - HOLDER_LOOKBACK_BLOCKS : 0n;
}

/**
 * The newest distinct recipients of a transfer, at most three, never the zero address or the
 * `excluded` ones (the token itself, the pool manager). Logs are optional evidence: a node that
 * refuses the range (many cap it) gives no holders, and the simulation falls back to a state
 * override; a node that is down fails the other reads of the same round trip.
 */
export async function recentHolders(
  client: PublicClient, token: Address, head: bigint | null, excluded: readonly Address[],
): Promise<RecentHolder[]> {
  const fromBlock = logsFrom(head);
  let logs;
  try {
    logs = await client.getLogs({ address: token, event: transferEvent, fromBlock, toBlock: 'latest' });
  } catch {
    return [];
  }
  const skip = new Set([zeroAddress, token, ...excluded].map((address) => address.toLowerCase()));
  const holders: RecentHolder[] = [];
  for (let i = logs.length - 1; i >= 0 && holders.length < MAX_HOLDERS; i--) {
    const { to, value } = logs[i].args;
    if (!to || value === undefined || value === 0n || skip.has(to.toLowerCase())) continue;
    skip.add(to.toLowerCase());
    holders.push({ holder: getAddress(to), received: value });
  }
  return holders;
}
