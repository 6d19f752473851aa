// Admins beside owner(), found by behaviour: a candidate whose calls go through where a stranger's same calls are refused, and what those calls did to a holder.
import type { Address } from 'viem';
import type { AdminCandidate } from './admin-candidates.js';
import { effectOf, type OwnerPower, type PowerCalls, type PowerProbe } from './owner-powers.js';
import { PRIVILEGED_SELECTORS } from './selectors.js';

/** An address the code lets through where it refuses others (ARCHITECTURE.md "Token safety"). */
export interface LiveAdmin {
  address: Address;
  /** Where it was found: a storage slot, a constant of the code, a role grant. */
  source: string;
  /** The functions that let it through and refused a stranger, by signature (or selector when unlisted). */
  functions: string[];
  /** What those calls did to a holder, as the owner's probes are read. */
  powers: OwnerPower[];
}

/**
 * For each candidate: the functions whose call went through from it after the same call from a
 * stranger (holding tokens and ether too) was refused. Such a function compares the caller with
 * something the candidate matches, so the candidate is an admin whatever owner() says.
 */
export function readAdmins(probe: PowerProbe, calls: PowerCalls, candidates: readonly AdminCandidate[]): LiveAdmin[] {
  return candidates.flatMap(({ address, source }) => {
    const gated = new Map<string, OwnerPower | null>();
    probe.probes.forEach(({ selector, caller, gated: asked }, i) => {
      if (!asked || caller.toLowerCase() !== address.toLowerCase()) return;
      if (calls.get(`power.${i}.owner`)?.ok !== true || calls.get(`power.${i}.stranger`)?.ok !== false) return;
      const effect = effectOf(probe, calls, i);
      const signature = PRIVILEGED_SELECTORS.get(selector)?.signature ?? null;
      if (!gated.has(selector) || (effect && !gated.get(selector))) gated.set(selector, effect ? { selector, signature, effect } : null);
    });
    if (gated.size === 0) return [];
    const functions = [...gated.keys()].map((selector) => PRIVILEGED_SELECTORS.get(selector)?.signature ?? `the unlisted function ${selector}`);
    return [{ address, source, functions, powers: [...gated.values()].filter((power): power is OwnerPower => power !== null) }];
  });
}
