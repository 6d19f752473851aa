// Owner powers found by behaviour: every function the token's dispatcher offers, called by its owner (and by each admin candidate, after a stranger) with probing arguments against a holder.
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

/** The calls of one simulated block, each with its label; results come back in the same order. */
export interface LabelledCalls {
  labels: string[];
  calls: { from: Address; to: Address; data: Hex }[];
}

export interface PowerProbe {
  /** The probes' block: the control holder's two sends, then every probe. */
  blocks: [LabelledCalls];
  /** Balances of the probing holders and the callers' ether, applied at the start of the probes' block. */
  overrides: Record<string, { balance?: Hex; stateDiff?: Record<string, Hex> }>;
  /**
   * Each probe's selector, holder and caller (the owner, or an admin candidate); the last is the
   * control, where nobody calls. `gated`: a stranger made the same call just before, so a call that
   * only the caller gets through shows which functions let it in.
   */
  probes: { selector: string; holder: Address; caller: Address; gated: boolean }[];
  amount: bigint;
}

export interface PowerProbeInput {
  token: Address;
  /** owner(), null when renounced or absent. */
  owner: Address | null;
  /** Addresses that may be admins beside owner() (ARCHITECTURE.md "Token safety"), each probed as the owner is. */
  admins?: readonly Address[];
  selectors: ReadonlySet<string>;
  slot: BalanceSlot;
  amount: bigint;
}

/** The control probe's selector: a holder that sends twice with no owner call between, before any owner call. */
export const CONTROL = 'control';

/**
 * The steps of one probe, in the probes' block: the holder sends one unit and its balance, the
 * supply and the caller's balance are read; (a stranger makes the caller's call;) the caller calls;
 * the three are read again.
 */
const STEPS = ['before', 'held', 'supply', 'ownerHeld', 'stranger', 'owner', 'balance', 'supplyAfter', 'ownerAfter', 'after'] as const;

/**
 * The owner's calls, as the last blocks of the one eth_simulateV1 (ARCHITECTURE.md "Token safety"):
 * after every sell, so they cannot disturb the sells. For each candidate and argument variant a
 * fresh holder, given tokens by override, sends one unit (so a power already used by an earlier
 * probe is not blamed on this one), the owner calls, and the holder's balance, the supply and the
 * owner's balance are read, and the holder sends one unit again. A control holder sends twice
 * before any owner call, so a rule that stops a second send whatever the owner does (one send a
 * block, a cooldown) is not taken for the owner's doing. Admin candidates are probed the same way
 * after the owner, each call made first by a stranger holding tokens and ether too.
 */
export function buildPowerProbe(input: PowerProbeInput): PowerProbe | null {
  const candidates = probedSelectors(input.selectors);
  const callers = [...(input.owner ? [{ caller: input.owner, gated: false }] : []), ...(input.admins ?? []).map((caller) => ({ caller, gated: true }))];
  if (candidates.length === 0 || callers.length === 0) return null;
  const recipient = throwawayAddress();
  const stranger = throwawayAddress();
  const funds = numberToHex(10n ** 30n);
  const tokenDiff: Record<string, Hex> = {};
  const probe: PowerProbe = { blocks: [calls()], overrides: {}, probes: [], amount: input.amount };
  for (const { caller } of callers) probe.overrides[getAddress(caller)] = { balance: funds };
  const [probes] = probe.blocks;
  const send = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [recipient, 1n] });
  const supply = encodeFunctionData({ abi: erc20Abi, functionName: 'totalSupply' });
  const give = (holder: Address) => {
    tokenDiff[balanceStorageKey(holder, input.slot) as string] = numberToHex(input.amount, { size: 32 });
    probe.overrides[holder] = { balance: funds };
  };
  const control = throwawayAddress();
  give(control);
  give(stranger);
  const controlIndex = callers.length * candidates.length * 2;
  push(probes, `power.${controlIndex}.before`, { from: control, to: input.token, data: send });
  push(probes, `power.${controlIndex}.held`, { from: control, to: input.token, data: balanceOfCall(control) });
  push(probes, `power.${controlIndex}.after`, { from: control, to: input.token, data: send });
  for (const { caller, gated } of callers) {
    for (const [selector, variant] of candidates.flatMap((s) => [0, 1].map((v) => [s, v] as const))) {
      const holder = throwawayAddress();
      give(holder);
      const i = probe.probes.push({ selector, holder, caller, gated }) - 1;
      const held = balanceOfCall(holder);
      const call = concat([selector as Hex, probingArguments(holder, variant)]);
      const step: Record<(typeof STEPS)[number], { from: Address; data: Hex } | null> = {
        before: { from: holder, data: send }, held: { from: holder, data: held }, supply: { from: holder, data: supply }, ownerHeld: { from: holder, data: balanceOfCall(caller) },
        stranger: gated ? { from: stranger, data: call } : null, owner: { from: caller, data: call },
        balance: { from: holder, data: held }, supplyAfter: { from: holder, data: supply }, ownerAfter: { from: holder, data: balanceOfCall(caller) },
        after: { from: holder, data: send },
      };
      for (const name of STEPS) if (step[name]) push(probes, `power.${i}.${name}`, { ...step[name], to: input.token });
    }
  }
  probe.probes.push({ selector: CONTROL, holder: control, caller: control, gated: false });
  probe.overrides[input.token] = { stateDiff: tokenDiff };
  return probe;
}

function calls(): LabelledCalls {
  return { labels: [], calls: [] };
}

function push(block: LabelledCalls, label: string, call: LabelledCalls['calls'][number]): void {
  block.labels.push(label);
  block.calls.push(call);
}

function balanceOfCall(holder: Address): Hex {
  return encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [holder] });
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

/** The probes' calls by label (`power.<i>.<step>`); a missing one reads as reverted. */
export type PowerCalls = ReadonlyMap<string, PowerCall>;

/**
 * A power is shown when the holder's send before the owner's call moved one unit, the owner's call
 * went through, and then the holder's balance changed, or it could not send again though the
 * control's holder could. A balance that rose is a mint only when the supply rose or
 * the owner did not pay for it: an owner handing out its own tokens holds no power over anyone.
 * Only the owner's probes are read here; admin candidates' are read by `readAdmins`.
 */
export function readPowers(probe: PowerProbe, calls: PowerCalls): OwnerPower[] {
  const found = new Map<string, OwnerPower>();
  const control = probe.probes.length - 1;
  probe.probes.forEach(({ selector, gated }, i) => {
    if (i === control || gated || found.has(selector)) return;
    const effect = effectOf(probe, calls, i);
    if (effect) found.set(selector, { selector, signature: PRIVILEGED_SELECTORS.get(selector)?.signature ?? null, effect });
  });
  return [...found.values()];
}

/** What probe `i`'s caller did to its holder; null when nothing, or when it could not be seen. */
export function effectOf(probe: PowerProbe, calls: PowerCalls, i: number): PowerEffect | null {
  const control = probe.probes.length - 1;
  if (!sentBefore(probe, calls, i) || calls.get(`power.${i}.owner`)?.ok !== true) return null;
  const controlSent = sentBefore(probe, calls, control) && calls.get(`power.${control}.after`)?.ok === true;
  const read = (step: string) => uint(calls.get(`power.${i}.${step}`));
  const [held, balance] = [read('held')!, read('balance')];
  const [supply, supplyAfter, ownerHeld, ownerAfter] = [read('supply'), read('supplyAfter'), read('ownerHeld'), read('ownerAfter')];
  const ownerPaid = balance !== null && ownerHeld !== null && ownerAfter !== null && ownerHeld - ownerAfter >= balance - held;
  const supplyRose = supply !== null && supplyAfter !== null && supplyAfter > supply;
  return balance === null ? null
    : balance < held ? 'took'
      : balance > held ? (supplyRose || !ownerPaid ? 'gave' : null)
        : controlSent && calls.get(`power.${i}.after`)?.ok !== true ? 'blocked' : null;
}

/** The holder's first send went through and moved one unit: what the owner's call does to it can be seen. */
function sentBefore(probe: PowerProbe, calls: PowerCalls, i: number): boolean {
  const held = uint(calls.get(`power.${i}.held`));
  return calls.get(`power.${i}.before`)?.ok === true && held === probe.amount - 1n;
}

function uint(call: PowerCall | undefined): bigint | null {
  return call?.ok && call.data.length >= 66 ? BigInt(call.data.slice(0, 66)) : null;
}

/**
 * Selectors whose effect could not be seen: for every argument variant the holder could not send
 * before the owner's call, and no power found stops holders (which would explain it).
 */
export function uncheckedSelectors(probe: PowerProbe, calls: PowerCalls, found: readonly OwnerPower[]): string[] {
  if (found.some((power) => power.effect === 'blocked')) return [];
  const sent = new Map<string, boolean>();
  probe.probes.forEach(({ selector, gated }, i) => {
    if (selector !== CONTROL && !gated) sent.set(selector, (sent.get(selector) ?? false) || sentBefore(probe, calls, i));
  });
  return [...sent].filter(([, ok]) => !ok).map(([selector]) => selector);
}
