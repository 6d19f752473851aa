// Owner powers that take two calls with time between them (queue then execute, set then apply): every function called naming a holder, time moved, every function called again.
import { concat, encodeFunctionData, erc20Abi, numberToHex, pad, type Address, type Hex } from 'viem';
import { balanceStorageKey, type BalanceSlot } from '../chain/balance-slot.js';
import { probedSelectors, type LabelledCalls, type PowerCall, type PowerCalls, type PowerEffect } from './owner-powers.js';
import { PRIVILEGED_SELECTORS } from './selectors.js';
import { throwawayAddress } from './simulation-bundle.js';

/**
 * The time between the two steps: past a delay of a day, two or a week (what queues and
 * timelocks ask), inside the 14-day grace of Compound's Timelock, and an odd block count.
 */
export const SEQUENCE_GAP = { seconds: 8n * 86_400n + 3_600n, blocks: 57_901n } as const;

export interface SequenceProbe {
  /** Step one, run after the single-call probes in their block: each holder sends, the owner calls every function naming it, the holder sends again. */
  first: LabelledCalls;
  /** Step two, SEQUENCE_GAP later: the owner calls every function with zeros, then naming each holder again, then the holders and a control send. */
  second: LabelledCalls;
  overrides: Record<string, { balance?: Hex; stateDiff?: Record<string, Hex> }>;
  /** Token balance-slot entries for the holders and the control. */
  tokenDiff: Record<string, Hex>;
  selectors: string[];
  amount: bigint;
}

/**
 * Two holders, because step two calls the queueing function again as well as the executing one: a
 * queue called again before its execute restarts the wait. The first holder's functions run in
 * selector order, the second's in reverse, so for any pair the execute runs first for one of them.
 */
const HOLDERS = ['forward', 'reverse'] as const;

/** Null when the dispatcher offers nothing beyond the functions every token has. */
export function buildSequenceProbe(input: { token: Address; owner: Address; selectors: ReadonlySet<string>; slot: BalanceSlot; amount: bigint }): SequenceProbe | null {
  const selectors = probedSelectors(input.selectors);
  if (selectors.length === 0) return null;
  const holders = HOLDERS.map(() => throwawayAddress());
  const [control, recipient] = [throwawayAddress(), throwawayAddress()];
  const funds = numberToHex(10n ** 30n);
  const send = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [recipient, 1n] });
  const held = (holder: Address) => encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [holder] });
  const naming = (holder: Address) => concat([pad(holder), numberToHex(1n, { size: 32 }), numberToHex(1n, { size: 32 })]);
  const zeros = concat([pad('0x00'), pad('0x00'), pad('0x00')]);
  const first: LabelledCalls = { labels: [], calls: [] };
  const second: LabelledCalls = { labels: [], calls: [] };
  const add = (block: LabelledCalls, label: string, from: Address, data: Hex) => {
    block.labels.push(`sequence.${label}`);
    block.calls.push({ from, to: input.token, data });
  };
  holders.forEach((holder, h) => {
    add(first, `${h}.before`, holder, send);
    selectors.forEach((selector, k) => add(first, `${h}.set.${k}`, input.owner, concat([selector as Hex, naming(holder)])));
    add(first, `${h}.between`, holder, send);
    add(first, `${h}.held`, holder, held(holder));
  });
  selectors.forEach((selector, k) => add(second, `run.${k}.zeros`, input.owner, concat([selector as Hex, zeros])));
  holders.forEach((holder, h) => {
    const order = selectors.map((selector, k) => [selector, k] as const);
    for (const [selector, k] of h === 0 ? order : order.reverse()) add(second, `${h}.run.${k}`, input.owner, concat([selector as Hex, naming(holder)]));
  });
  holders.forEach((holder, h) => {
    add(second, `${h}.balance`, holder, held(holder));
    add(second, `${h}.after`, holder, send);
  });
  add(second, 'control', control, send);
  const tokenDiff = Object.fromEntries([...holders, control].map((a) => [balanceStorageKey(a, input.slot) as string, numberToHex(input.amount, { size: 32 })]));
  const overrides = Object.fromEntries([...holders, control].map((a) => [a, { balance: funds }]));
  return { first, second, overrides, tokenDiff, selectors, amount: input.amount };
}

/** A power that took two owner calls with time between: what it did, and the functions that went through in each step. */
export interface SequencePower {
  effect: Exclude<PowerEffect, 'gave'>;
  set: string[];
  run: string[];
}

/**
 * Judged for a holder only when it could still send after step one (so a power of one call, which
 * the single-call probes name, is not counted again) and the control could send after step two.
 */
export function readSequence(probe: SequenceProbe, calls: PowerCalls): SequencePower | null {
  const get = (label: string): PowerCall | undefined => calls.get(`sequence.${label}`);
  if (get('control')?.ok !== true) return null;
  for (const h of HOLDERS.keys()) {
    const between = uint(get(`${h}.held`));
    if (get(`${h}.before`)?.ok !== true || get(`${h}.between`)?.ok !== true || between !== probe.amount - 2n) continue;
    const balance = uint(get(`${h}.balance`));
    const effect = balance !== null && balance < between ? 'took' : get(`${h}.after`)?.ok !== true ? 'blocked' : null;
    if (effect === null) continue;
    // Functions that went through and returned nothing: setters, not the views every call gets through.
    const changed = (labels: (k: number) => string[]) => probe.selectors
      .filter((_, k) => labels(k).some((label) => get(label)?.ok === true && get(label)?.data === '0x')).map(name);
    return { effect, set: changed((k) => [`${h}.set.${k}`]), run: changed((k) => [`run.${k}.zeros`, `${h}.run.${k}`]) };
  }
  return null;
}

function name(selector: string): string {
  return PRIVILEGED_SELECTORS.get(selector)?.signature ?? `the unlisted function ${selector}`;
}

function uint(call: PowerCall | undefined): bigint | null {
  return call?.ok && call.data.length >= 66 ? BigInt(call.data.slice(0, 66)) : null;
}
