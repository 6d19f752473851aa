// Round trip 1 of a cold token-safety check: every read the plan needs, sent together in one JSON-RPC batch.
import { getAddress, parseAbi, type Address, type Hex, type PublicClient } from 'viem';
import { markBalanceSlot, type BalanceSlot, type SlotSearch } from '../chain/balance-slot.js';
import { ChainUnavailableError } from '../chain/errors.js';
import { multicall3Abi, readMany, type ContractRead, type ReadResult } from '../chain/multicall.js';
import { poolIdOf, stateViewAbi, venuePoolKey, type PoolKey } from '../chain/venue-pool.js';
import type { Venue } from '../registry/registry.js';
import type { ProbeCode } from './probe-code.js';
import { readAdminSlots, readRoleHolders } from './admin-candidates.js';
import { logsFrom, recentHolders, type RecentHolder } from './recent-holders.js';
import { throwawayAddress } from './simulation-bundle.js';

/** EIP-1967 storage slots: keccak256('eip1967.proxy.<name>') - 1. */
export const EIP1967_SLOTS = {
  implementation: '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc',
  beacon: '0xa3f0ad74e5423aebfd80d3ef4346578335a9a72aeaee59ff6cb3582b35133d50',
  admin: '0xb53127684a568b3173ae13b9f8a6016e243e63b6e8ee1178d6a717850b5d6103',
} as const satisfies Record<string, Hex>;

const tokenAbi = parseAbi([
  'function decimals() view returns (uint8)',
  'function owner() view returns (address)',
  'function cap() view returns (uint256)',
  'function totalSupply() view returns (uint256)',
]);

export interface RoundOneDeps {
  client: PublicClient;
  multicall3: Address;
  venue: Venue | null;
  code: ProbeCode;
  /** The quote token's balance slot (found once per process); null: no venue buys. */
  quoteSlot: () => Promise<BalanceSlot | null>;
  /** The newest chain head seen, which bounds the holder log search. */
  head: { number: bigint | null };
}

/** What round trip 1 read; multicall answers are named. */
export interface FirstRound {
  token: Address;
  code: Hex;
  /** EIP-1967 implementation, beacon and admin slots, in that order. */
  proxySlots: Hex[];
  head: { number: bigint; time: bigint; baseFee: bigint | null };
  decimals: number | null;
  /** owner() as answered; null when the token has none (or it reverted). */
  owner: Address | null;
  cap: bigint | null;
  totalSupply: bigint | null;
  key: PoolKey | null;
  poolLive: boolean;
  /** The pool's price and in-range liquidity when it is live, which size the sell-size rung. */
  poolState: { sqrtPriceX96: bigint; liquidity: bigint } | null;
  marks: SlotSearch;
  holders: RecentHolder[];
  probeCode: Hex;
  quoteSlot: BalanceSlot | null;
  /** Storage slots 0 to ADMIN_SLOT_COUNT - 1 and the accounts granted a role: where admins beside owner() are looked for. */
  adminSlots: Hex[];
  roleHolders: Address[];
}

/**
 * Every request is issued before any is awaited, so a batching client sends them as one HTTP
 * request (ARCHITECTURE.md "Token safety": two round trips a cold check). Rejects when the node fails.
 */
export async function readFirstRound(deps: RoundOneDeps, token: Address): Promise<FirstRound> {
  const key = deps.venue ? venuePoolKey(deps.venue, token) : null;
  const excluded = deps.venue ? [getAddress(deps.venue.pool_manager)] : [];
  const [code, proxySlots, reads, marks, holders, probeCode, quoteSlot, adminSlots, roleHolders] = await Promise.all([
    deps.client.getCode({ address: token }).catch(unavailable(`code read of ${token}`)),
    Promise.all(Object.values(EIP1967_SLOTS).map((slot) => deps.client.getStorageAt({ address: token, slot }).catch(unavailable(`storage read of ${token}`)))),
    readMany(deps.client, deps.multicall3, planReads(deps, token, key ? poolIdOf(key) : null), `reads of ${token}`),
    markBalanceSlot(deps.client, token, throwawayAddress()),
    recentHolders(deps.client, token, deps.head.number, excluded),
    deps.code.safetyProbe(),
    key ? deps.quoteSlot() : Promise.resolve(null),
    readAdminSlots(deps.client, token).catch(unavailable(`storage read of ${token}`)),
    readRoleHolders(deps.client, token, logsFrom(deps.head.number)),
  ]);
  const [blockNumber, blockTime, baseFee, decimals, owner, cap, supply, slot0, liquidity] = reads;
  if (!blockNumber.ok || !blockTime.ok) throw new ChainUnavailableError(`head read for ${token}`, new Error('Multicall3 gave no block'));
  deps.head.number = blockNumber.value as bigint;
  const live = key !== null && slot0?.ok === true && liquidity?.ok === true && (slot0.value as readonly bigint[])[0] !== 0n && (liquidity.value as bigint) > 0n;
  return {
    token, code: code ?? '0x', proxySlots: proxySlots.map((word) => word ?? '0x'),
    head: { number: blockNumber.value as bigint, time: blockTime.value as bigint, baseFee: value<bigint>(baseFee) },
    decimals: decimals.ok ? Number(decimals.value) : null,
    owner: value<Address>(owner), cap: value<bigint>(cap), totalSupply: value<bigint>(supply),
    key, poolLive: live, poolState: live ? { sqrtPriceX96: (slot0!.value as readonly bigint[])[0], liquidity: liquidity!.value as bigint } : null, marks, holders, probeCode, quoteSlot, adminSlots, roleHolders,
  };
}

function planReads(deps: RoundOneDeps, token: Address, poolId: Hex | null): ContractRead[] {
  const reads: ContractRead[] = [
    { address: deps.multicall3, abi: multicall3Abi, functionName: 'getBlockNumber' },
    { address: deps.multicall3, abi: multicall3Abi, functionName: 'getCurrentBlockTimestamp' },
    { address: deps.multicall3, abi: multicall3Abi, functionName: 'getBasefee' },
    ...(['decimals', 'owner', 'cap', 'totalSupply'] as const).map((functionName) => ({ address: token, abi: tokenAbi, functionName })),
  ];
  if (poolId === null || !deps.venue) return reads;
  const stateView = getAddress(deps.venue.state_view);
  return [
    ...reads,
    { address: stateView, abi: stateViewAbi, functionName: 'getSlot0', args: [poolId] },
    { address: stateView, abi: stateViewAbi, functionName: 'getLiquidity', args: [poolId] },
  ];
}

function value<T>(read: ReadResult | undefined): T | null {
  return read?.ok ? (read.value as T) : null;
}

function unavailable(what: string): (error: unknown) => never {
  return (error) => {
    throw new ChainUnavailableError(what, error);
  };
}
