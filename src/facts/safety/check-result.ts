// Reads round trip 2 back: the sell simulation, the owner powers found, and what about the owner's powers could not be checked.
import { readAdmins, type LiveAdmin } from './admin-powers.js';
import type { ContractFacts } from './contract-facts.js';
import { readSequence, type SequencePower } from './owner-sequences.js';
import { readPowers, uncheckedSelectors, type OwnerPower, type PowerCall, type PowerCalls } from './owner-powers.js';
import type { CheckPlan, SecondRound } from './second-round.js';
import { fromOutcome, notSimulated, type SellSimulation } from './sell-simulation.js';
import { PRIVILEGED_SELECTORS } from './selectors.js';
import { readOutcome } from './simulation-outcome.js';

export interface CheckResult {
  sell: SellSimulation;
  /** What about the owner's powers could not be checked, one sentence each (ARCHITECTURE.md "Token safety"). */
  unchecked: string[];
  /** Admins beside owner() that the code let through where it refused a stranger. */
  admins: LiveAdmin[];
  /** What the owner's two-step probe showed (ARCHITECTURE.md "Token safety"); null when nothing. */
  sequence: SequencePower | null;
}

export function readCheck(plan: CheckPlan, second: SecondRound, facts: ContractFacts): CheckResult {
  const { legs } = second;
  const powerCalls: PowerCalls | null = plan.powers && legs
    ? new Map(plan.powers.blocks.flatMap((block) => block.labels).map((label) => [label, toCall(legs.get(label))]))
    : null;
  const powers = plan.powers && powerCalls && facts.owner.kind !== 'renounced' && facts.owner.kind !== 'none' ? readPowers(plan.powers, powerCalls) : null;
  const admins = plan.powers && powerCalls ? readAdmins(plan.powers, powerCalls, plan.admins) : [];
  const sequence = plan.sequence && legs ? readSequence(plan.sequence, new Map([...plan.sequence.first.labels, ...plan.sequence.second.labels].map((label) => [label, toCall(legs.get(label))]))) : null;
  const sell = legs === null
    ? notSimulated('the node does not offer eth_simulateV1, so no buy and sell could be simulated')
    : plan.bundle.routes.length === 0
      ? notSimulated('the token has no live venue pool, no recent holder and no storage slot that could be proven to hold balances')
      : fromOutcome(readOutcome(plan.bundle, legs, plan.pool !== null), plan.gas, powers);
  // Holders that cannot send at all are the sell findings' to name, not an unchecked probe.
  const probeCalls = sell.ok ? powerCalls : null;
  return { sell, unchecked: uncheckedPowers(plan, facts, legs !== null, powers, probeCalls, admins), admins, sequence };
}

function toCall(leg: { ok: boolean; data: `0x${string}` | null } | undefined): PowerCall {
  return { ok: leg?.ok === true, data: leg?.data ?? '0x' };
}

/**
 * A token whose owner probes could not run is never judged `safe` on their silence: no owner()
 * while privileged functions exist, no proven balance slot, a proxy's implementation, a node
 * without eth_simulateV1, or holders that could not send before the owner's call.
 */
function uncheckedPowers(plan: CheckPlan, facts: ContractFacts, simulated: boolean, found: OwnerPower[] | null, calls: PowerCalls | null, admins: readonly LiveAdmin[]): string[] {
  // A function an admin beside owner() got through was called as that admin.
  const calledAs = new Set(admins.flatMap((admin) => admin.functions));
  const privileged = [...facts.capabilities.values()].flat().filter((signature) => !calledAs.has(signature)).sort();
  if (facts.owner.kind === 'none') {
    return privileged.length === 0 ? [] : [`the token has privileged functions (${privileged.join(', ')}) but no owner() to call them as, so what they can do to holders was not simulated`];
  }
  if (facts.owner.kind === 'renounced') return [];
  const reasons: string[] = [];
  if (facts.proxy) reasons.push(`the functions of the implementation ${facts.proxy.implementation} behind the proxy were not called as the owner`);
  if (plan.powers === null && !facts.proxy && privileged.length > 0) {
    reasons.push(`no storage slot holding balances was proven, so no holder could be given tokens to see what ${privileged.join(', ')} do`);
  }
  if (plan.powers && !simulated) reasons.push("the node does not offer eth_simulateV1, so the owner's functions were not called");
  if (plan.powers && calls && found) {
    const missed = uncheckedSelectors(plan.powers, calls, found).map((s) => PRIVILEGED_SELECTORS.get(s)?.signature ?? s);
    if (missed.length > 0) reasons.push(`holders could not send before the owner called ${missed.join(', ')}, so what those calls do to holders could not be seen`);
  }
  return reasons;
}
