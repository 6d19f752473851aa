// Outside calls in a transfer: the call trace of a holder's transfer, the contracts it reaches that the registry does not list, and who owns them.
import { encodeFunctionData, erc20Abi, getAddress, numberToHex, parseAbi, type Address, type Hex } from 'viem';
import { balanceStorageKey, type BalanceSlot } from '../chain/balance-slot.js';
import type { Registry } from '../registry/registry.js';
import { throwawayAddress, type GasTerms } from './simulation-bundle.js';

const ownerAbi = parseAbi(['function owner() view returns (address)']);

/** At most this many address constants of the token's code are asked for their owner(). */
export const MAX_OWNER_CANDIDATES = 8;

/** A contract a holder's transfer called that the registry does not list; `owner` as it answered owner(). */
export interface OutsideCall {
  address: Address;
  /** Its owner(); null when it has none, or when it was not among the code's address constants (not asked). */
  owner: Address | null;
}

/** Who the traced transfer is from: a fresh holder given `amount` in the proven balance slot, or a real holder sending part of what it holds. */
export type TraceSender = { slot: BalanceSlot; amount: bigint } | { holder: Address; amount: bigint };

/**
 * The debug_traceCall params: a fresh holder, given tokens when the balance slot is known, sends
 * some on; without a proven slot a real holder from the Transfer logs sends, so the transfer
 * runs its hooks rather than reverting for want of a balance.
 */
export function traceRequest(token: Address, sender: TraceSender | null, gas: GasTerms): unknown[] {
  const from = sender && 'holder' in sender ? sender.holder : throwawayAddress();
  const overrides: Record<string, unknown> = { [from]: { balance: numberToHex(10n ** 30n) } };
  if (sender && 'slot' in sender) overrides[token] = { stateDiff: { [balanceStorageKey(from, sender.slot)]: numberToHex(sender.amount, { size: 32 }) } };
  const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [throwawayAddress(), (sender?.amount ?? 2n) / 2n] });
  const fees = { maxFeePerGas: numberToHex(gas.baseFee + gas.priorityFee), maxPriorityFeePerGas: numberToHex(gas.priorityFee) };
  return [{ from, to: token, data, ...fees }, 'latest', { tracer: 'callTracer', stateOverrides: overrides }];
}

/** The calls that ask each candidate (an address constant of the token's code) for its owner(), from `origin`. */
export function ownerCalls(candidates: readonly Address[], origin: Address): { labels: string[]; calls: { from: Address; to: Address; data: Hex }[] } {
  const data = encodeFunctionData({ abi: ownerAbi, functionName: 'owner' });
  const asked = candidates.slice(0, MAX_OWNER_CANDIDATES);
  return { labels: asked.map((address) => `callee.${address}.owner`), calls: asked.map((to) => ({ from: origin, to, data })) };
}

interface Frame {
  type?: string;
  to?: string;
  input?: string;
  calls?: Frame[];
}

/**
 * The trace when it shows the transfer's calls, else null (unchecked). Without a proven balance slot the
 * traced holder holds nothing, and a transfer that reverted for that ran none of its hooks: its calls are
 * unknown, not absent. With a slot, the calls made before a revert are in the trace, and the sells judge the revert.
 */
export function readableTrace<T extends object>(trace: T | null, funded: boolean): T | null {
  return trace !== null && (funded || (trace as { error?: unknown }).error === undefined) ? trace : null;
}

/** Every address the registry names: its assets, service token, settlement asset, venue and Multicall3. */
export function registryAddresses(registry: Registry): Set<string> {
  const venue = registry.venue;
  const named = [
    ...registry.assets.map((asset) => asset.contract_address), registry.serviceToken?.address, registry.settlementAsset?.address,
    registry.multicall3, venue?.pool_manager, venue?.state_view, venue?.swap_helper, venue?.quote_token.address,
  ];
  return new Set(named.filter((a): a is string => typeof a === 'string').map((a) => a.toLowerCase()));
}

/**
 * The contracts the traced transfer called, in order: not the token, not a precompile, not a
 * delegate of the token's own code (its proxy implementation: the proxy findings cover it), not a
 * plain ether send, and not one the registry lists.
 */
export function outsideCalls(trace: Frame | null, token: Address, known: ReadonlySet<string>, owners: ReadonlyMap<string, Address | null>): OutsideCall[] {
  const found = new Map<string, OutsideCall>();
  const walk = (frame: Frame) => {
    for (const call of frame.calls ?? []) {
      const to = call.to?.toLowerCase();
      const plainSend = (call.input ?? '0x') === '0x' && (call.calls ?? []).length === 0;
      if (to && call.type !== 'DELEGATECALL' && !plainSend && to !== token.toLowerCase() && BigInt(to) > 0xffffn && !known.has(to) && !found.has(to)) {
        found.set(to, { address: getAddress(to), owner: owners.get(to) ?? null });
      }
      walk(call);
    }
  };
  if (trace) walk(trace);
  return [...found.values()];
}

/** The owner() answers of the simulation's `callee.<address>.owner` calls, keyed by lower-case address; the zero address kept. */
export function ownersAnswered(results: ReadonlyMap<string, { ok: boolean; data: Hex | null }>): Map<string, Address | null> {
  const owners = new Map<string, Address | null>();
  for (const [label, result] of results) {
    const match = /^callee\.(0x[0-9a-fA-F]{40})\.owner$/.exec(label);
    if (!match) continue;
    const word = result.ok && result.data && result.data.length === 66 ? result.data : null;
    owners.set(match[1].toLowerCase(), word ? getAddress(`0x${word.slice(26)}`) : null);
  }
  return owners;
}
