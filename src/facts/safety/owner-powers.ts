// Owner powers found by behaviour: every function the token's dispatcher offers, called by its owner with probing arguments against a holder.
import { concat, encodeFunctionData, erc20Abi, getAddress, numberToHex, pad, toFunctionSelector, type Address, type Hex } from 'viem';
import { balanceStorageKey, type BalanceSlot } from '../chain/balance-slot.js';
import { PRIVILEGED_SELECTORS } from './selectors.js';
import { throwawayAddress } from './simulation-bundle.js';

/** What an owner call did to the holder it named: took tokens, gave tokens, or stopped its transfers. */
export type PowerEffect = 'took' | 'gave' | 'blocked';

export interface OwnerPower {
  selector: string;
  /** The human signature when the selector is a known one; null for an unlisted name. */
  signature: string | null;
  effect: PowerEffect;
}

/**
 * Functions every ERC-20 or Ownable token has, whose effect on a named holder is no power over
 * holders (transfer gives the owner's own tokens) or would end the probing (ownership moves).
 */
const ORDINARY = new Set<string>([
  'transfer(address,uint256)', 'transferFrom(address,address,uint256)', 'approve(address,uint256)',
  'increaseAllowance(address,uint256)', 'decreaseAllowance(address,uint256)',
  'permit(address,address,uint256,uint256,uint8,bytes32,bytes32)', 'transferOwnership(address)', 'renounceOwnership()',
  'grantRole(bytes32,address)', 'revokeRole(bytes32,address)', 'renounceRole(bytes32,address)',
].map((signature) => toFunctionSelector(`function ${signature}`)));

/** At most this many selectors are probed, so a large dispatcher cannot blow the call's budget. */
export const MAX_PROBED_SELECTORS = 32;

/**
 * Probing arguments: the holder, then 1 (an amount, a true flag); and all zeros (a false flag, as
 * in setTradingEnabled(false)). Solidity ignores words a function does not read.
 */
function probingArguments(holder: Address, variant: number): Hex {
  const one = numberToHex(1n, { size: 32 });
  const zero = numberToHex(0n, { size: 32 });
  return variant === 0 ? concat([pad(holder), one, one]) : concat([zero, zero, zero]);
}

export interface PowerProbe {
  /** One label per call, in order; results come back in the same order. */
  labels: string[];
  calls: { from: Address; to: Address; data: Hex }[];
  /** Balances of the probing holders and the owner's ether, applied at the start of the probes' block. */
  overrides: Record<string, { balance?: Hex; stateDiff?: Record<string, Hex> }>;
  probes: { selector: string; holder: Address }[];
  amount: bigint;
}

export interface PowerProbeInput {
  token: Address;
  owner: Address;
  selectors: ReadonlySet<string>;
  slot: BalanceSlot;
  amount: bigint;
}

/**
 * The owner's calls, as the last block of the one eth_simulateV1 (ARCHITECTURE.md "Token safety"):
 * after every sell, so they cannot disturb the sells. For each candidate and argument variant a
 * fresh holder, given tokens by override, sends one unit (so a power already used by an earlier
 * probe is not blamed on this one), the owner calls, and the holder's balance is read and it sends
 * one unit again.
 */
export function buildPowerProbe(input: PowerProbeInput): PowerProbe | null {
  const candidates = probedSelectors(input.selectors);
  if (candidates.length === 0) return null;
  const recipient = throwawayAddress();
  const funds = numberToHex(10n ** 30n);
  const tokenDiff: Record<string, Hex> = {};
  const overrides: PowerProbe['overrides'] = { [getAddress(input.owner) as string]: { balance: funds } };
  const calls: PowerProbe['calls'] = [];
  const labels: string[] = [];
  const probes: PowerProbe['probes'] = [];
  const send = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [recipient, 1n] });
  for (const selector of candidates) {
    for (const variant of [0, 1]) {
      const holder = throwawayAddress();
      const data = concat([selector as Hex, probingArguments(holder, variant)]);
      tokenDiff[balanceStorageKey(holder, input.slot) as string] = numberToHex(input.amount, { size: 32 });
      overrides[holder] = { balance: funds };
      const i = probes.push({ selector, holder }) - 1;
      const balanceOf = encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [holder] });
      calls.push(
        { from: holder, to: input.token, data: send }, { from: input.owner, to: input.token, data },
        { from: holder, to: input.token, data: balanceOf }, { from: holder, to: input.token, data: send },
      );
      labels.push(`power.${i}.before`, `power.${i}.owner`, `power.${i}.balance`, `power.${i}.after`);
    }
  }
  overrides[input.token] = { stateDiff: tokenDiff };
  return { labels, calls, overrides, probes, amount: input.amount };
}

/** The selectors an owner is probed with: the dispatcher's, but the ones every ERC-20 or Ownable token has. */
export function probedSelectors(selectors: ReadonlySet<string>): string[] {
  return [...selectors].filter((s) => !ORDINARY.has(s)).sort().slice(0, MAX_PROBED_SELECTORS);
}

/** One call's outcome: status and return data. */
export interface PowerCall {
  ok: boolean;
  data: Hex;
}

/**
 * A power is shown when the holder could send before the owner's call, the owner's call went
 * through, and then the holder's balance was not what its own send left, or it could not send.
 */
export function readPowers(probe: PowerProbe, calls: readonly PowerCall[]): OwnerPower[] {
  const found = new Map<string, OwnerPower>();
  probe.probes.forEach(({ selector }, i) => {
    const [before, owner, balance, after] = calls.slice(i * 4, i * 4 + 4);
    if (!before?.ok || !owner?.ok || found.has(selector)) return;
    const held = balance.ok && balance.data.length >= 66 ? BigInt(balance.data.slice(0, 66)) : null;
    const expected = probe.amount - 1n;
    const effect: PowerEffect | null = held !== null && held < expected ? 'took' : held !== null && held > expected ? 'gave' : !after.ok ? 'blocked' : null;
    if (effect) found.set(selector, { selector, signature: PRIVILEGED_SELECTORS.get(selector)?.signature ?? null, effect });
  });
  return [...found.values()];
}

/**
 * Selectors whose effect could not be seen: for every argument variant the holder could not send
 * before the owner's call, and no power found stops holders (which would explain it).
 */
export function uncheckedSelectors(probe: PowerProbe, calls: readonly PowerCall[], found: readonly OwnerPower[]): string[] {
  if (found.some((power) => power.effect === 'blocked')) return [];
  const sent = new Map<string, boolean>();
  probe.probes.forEach(({ selector }, i) => sent.set(selector, (sent.get(selector) ?? false) || calls[i * 4]?.ok === true));
  return [...sent].filter(([, ok]) => !ok).map(([selector]) => selector);
}
