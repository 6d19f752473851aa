// Finds and proves where a token keeps an account's balance, by eth_call with storage overrides.
import { randomBytes } from 'node:crypto';
import { encodeAbiParameters, erc20Abi, getAddress, keccak256, numberToHex, type Address, type Hex, type PublicClient } from 'viem';
import { orOnRevert } from './errors.js';

/** `solidity`: keccak256(holder . slot); `vyper`: keccak256(slot . holder); `erc7201`: keccak256(holder . (root + slot)). */
export type SlotLayout = 'solidity' | 'vyper' | 'erc7201';

export interface BalanceSlot {
  /** The mapping's slot: 0-64 in the contract's storage, or the offset inside the ERC-7201 namespace. */
  slot: number;
  layout: SlotLayout;
}

/** ERC-7201 root of OpenZeppelin 5's upgradeable ERC20 ("openzeppelin.storage.ERC20"); balances sit at offset 0. */
export const OZ_ERC20_NAMESPACE = 0x52c63247e1f47db19d5ce0460030c497f067ca4cebf71ba98eeadabe20bace00n;
export const MAX_PROBED_SLOT = 64;

/** The storage key holding `holder`'s balance under `slot`. */
export function balanceStorageKey(holder: Address, slot: BalanceSlot): Hex {
  const base = BigInt(slot.slot) + (slot.layout === 'erc7201' ? OZ_ERC20_NAMESPACE : 0n);
  const [types, values] =
    slot.layout === 'vyper'
      ? [[{ type: 'uint256' }, { type: 'address' }], [base, holder]]
      : [[{ type: 'address' }, { type: 'uint256' }], [holder, base]];
  return keccak256(encodeAbiParameters(types, values as never));
}

/** The candidates: the hint in each layout, or slots 0-64 in both mapping layouts plus the ERC-7201 namespace. */
export function candidateSlots(hint: number | null): BalanceSlot[] {
  if (hint !== null) return (['solidity', 'vyper', 'erc7201'] as const).map((layout) => ({ slot: hint, layout }));
  const plain = Array.from({ length: MAX_PROBED_SLOT + 1 }, (_, slot) => slot);
  return [
    ...plain.map((slot) => ({ slot, layout: 'solidity' as const })),
    { slot: 0, layout: 'erc7201' as const },
    ...plain.map((slot) => ({ slot, layout: 'vyper' as const })),
  ];
}

/** The proven slot, or why there is none: balanceOf reverts (no ERC-20), or no candidate holds the balance. */
export type SlotSearch = { found: BalanceSlot } | { found: null; balanceOfReverts: boolean };

/**
 * Two eth_calls whatever the number of candidates: the first writes a distinct marker into
 * every candidate key at once and sees which one balanceOf returns; the second writes a new
 * value into that key alone and checks balanceOf reports it (the proof). Rejects when the
 * node does not answer.
 */
export async function searchBalanceSlot(client: PublicClient, token: string, holder: string, hint: number | null): Promise<SlotSearch> {
  const [address, account] = [getAddress(token), getAddress(holder)];
  const candidates = candidateSlots(hint);
  const base = BigInt(`0x${randomBytes(12).toString('hex')}`) << 32n;
  const overrides = candidates.map((slot, index) => ({ key: balanceStorageKey(account, slot), value: base + BigInt(index + 1) }));
  const seen = await balanceWithOverride(client, address, account, overrides);
  if (seen === null) return { found: null, balanceOfReverts: true };
  if (seen <= base || seen > base + BigInt(candidates.length)) return { found: null, balanceOfReverts: false };
  const found = candidates[Number(seen - base) - 1];
  const proof = base + BigInt(candidates.length + 1);
  const check = await balanceWithOverride(client, address, account, [{ key: balanceStorageKey(account, found), value: proof }]);
  return check === proof ? { found } : { found: null, balanceOfReverts: false };
}

/**
 * The first half of searchBalanceSlot alone: the candidate balanceOf reports under distinct
 * markers, unproven. One eth_call, for callers that prove the slot in a later call of their own.
 */
export async function markBalanceSlot(client: PublicClient, token: string, holder: string): Promise<SlotSearch> {
  const [address, account] = [getAddress(token), getAddress(holder)];
  const candidates = candidateSlots(null);
  const base = BigInt(`0x${randomBytes(12).toString('hex')}`) << 32n;
  const overrides = candidates.map((slot, index) => ({ key: balanceStorageKey(account, slot), value: base + BigInt(index + 1) }));
  const seen = await balanceWithOverride(client, address, account, overrides);
  if (seen === null) return { found: null, balanceOfReverts: true };
  if (seen <= base || seen > base + BigInt(candidates.length)) return { found: null, balanceOfReverts: false };
  return { found: candidates[Number(seen - base) - 1] };
}

/** The proven balance slot of `token`, or null. */
export async function findBalanceSlot(client: PublicClient, token: string, holder: string, hint: number | null): Promise<BalanceSlot | null> {
  return (await searchBalanceSlot(client, token, holder, hint)).found;
}

/** balanceOf(holder) with the given storage keys of the token overridden; null when it reverts. */
export function balanceWithOverride(
  client: PublicClient,
  token: Address,
  holder: Address,
  overrides: readonly { key: Hex; value: bigint }[],
): Promise<bigint | null> {
  const stateDiff = overrides.map(({ key, value }) => ({ slot: key, value: numberToHex(value, { size: 32 }) }));
  const read = client.readContract({
    address: token,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [holder],
    stateOverride: [{ address: token, stateDiff }],
  });
  return orOnRevert(read, null, `balance read of ${token}`);
}
