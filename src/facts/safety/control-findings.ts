// Token-safety findings about control outside the token's own functions: contracts its transfers call, and owner powers that could not be checked.
import type { ContractFacts } from './contract-facts.js';
import type { OutsideCall } from './outside-calls.js';
import type { Finding } from './severity.js';

export interface ControlEvidence {
  facts: ContractFacts;
  listed: boolean;
  /** Contracts a holder's transfer called that the registry does not list; null when the transfer could not be traced to its end; undefined when not asked. */
  outside?: OutsideCall[] | null;
  /** What about the owner's powers could not be checked. */
  unchecked?: string[];
}

/**
 * A transfer that asks another contract is only as safe as whoever can change that contract
 * (ARCHITECTURE.md "Token safety"): `warn` unless it answers to nobody (owner() renounced), or the
 * registry lists it. Excused, like every control, for the registry's own tokens.
 */
export function controlFindings({ facts, listed, outside, unchecked }: ControlEvidence): Finding[] {
  const level = (base: Finding['level']): Finding['level'] => (listed ? 'advisory' : base);
  const issuer = listed ? ' (a registry issuer control)' : '';
  const findings: Finding[] = [];
  if (outside === null) {
    findings.push({ level: level('warn'), text: `OUTSIDE_CALLS_UNCHECKED: a holder's transfer could not be traced to its end (the node has no debug_traceCall, or no balance could be given to the traced holder and its transfer reverted), so the contracts it calls could not be checked${issuer}` });
  }
  for (const call of outside ?? []) findings.push(outsideFinding(call, facts, level, issuer));
  for (const reason of unchecked ?? []) findings.push({ level: level('warn'), text: `OWNER_POWERS_UNCHECKED: ${reason}${issuer}` });
  return findings;
}

function outsideFinding(call: OutsideCall, facts: ContractFacts, level: (base: Finding['level']) => Finding['level'], issuer: string): Finding {
  const calls = `a holder's transfer calls ${call.address}, a contract the registry does not list`;
  const tokenOwner = facts.owner.address && BigInt(facts.owner.address) !== 0n ? facts.owner.address : null;
  if (call.owner && tokenOwner && call.owner.toLowerCase() === tokenOwner.toLowerCase()) {
    return { level: level('warn'), text: `OUTSIDE_CALL_OWNED: ${calls} whose owner() is the token's owner ${tokenOwner}; what transfers are allowed can change without the token changing${issuer}` };
  }
  if (call.owner && BigInt(call.owner) === 0n) return { level: 'advisory', text: `OUTSIDE_CALL: ${calls}; its owner() is renounced` };
  const whose = call.owner ? ` whose owner() is ${call.owner}` : ' that answers no owner()';
  return { level: level('warn'), text: `OUTSIDE_CALL_UNCHECKED: ${calls}${whose}; whether anyone can switch what it allows could not be checked${issuer}` };
}
