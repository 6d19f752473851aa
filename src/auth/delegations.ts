// Fleet delegations in the shared store: registered by the operator, ended by either side, listed per operator (ARCHITECTURE.md "Fleets").
import type { CacheStore } from '../store/cache-store.js';
import { delegationKey, endedDelegationKey, fleetKey } from '../store/keys.js';
import type { FleetDelegation } from './fleet-delegation.js';

/** The most agents one operator's fleet holds, so GET /api/v1/fleet reads a bounded number of chains. */
export const MAX_FLEET_AGENTS = 100;

/** A store update that races another is read and applied again this many times, then fails as the store's. */
const MAX_ATTEMPTS = 8;

/** What the store keeps of a registered delegation under the agent's key. */
export interface StoredDelegation {
  operator: string;
  /** Seconds since the epoch. */
  expiry: number;
  nonce: string;
  /** Milliseconds since the epoch. */
  registered_at: number;
}

export type Registration =
  | { ok: true; delegation: StoredDelegation }
  | { ok: false; code: 'delegation_expired' | 'delegation_revoked' | 'agent_delegated_elsewhere' | 'fleet_full' };

export class Delegations {
  constructor(private readonly store: CacheStore, private readonly now: () => number) {}

  /** The agent's delegation while it is in force, with the stored text a change must still find; null when none. */
  async active(agent: string): Promise<{ delegation: StoredDelegation; text: string } | null> {
    const { text, delegation } = await this.read(agent);
    return delegation === null ? null : { delegation, text: text! };
  }

  /** The stored text (a lapsed entry's too, which a change must still find) and the delegation when in force. */
  private async read(agent: string): Promise<{ text: string | null; delegation: StoredDelegation | null }> {
    const text = await this.store.get(delegationKey(agent));
    if (text === null) return { text, delegation: null };
    const delegation = parseStored(text);
    return { text, delegation: delegation.expiry * 1000 > this.now() ? delegation : null };
  }

  /** The agent's delegation when it is in force and names this operator. */
  async activeFor(operator: string, agent: string): Promise<StoredDelegation | null> {
    const found = await this.active(agent);
    return found !== null && found.delegation.operator === operator.toLowerCase() ? found.delegation : null;
  }

  /**
   * Registers a delegation whose signature was checked: refused when expired, ended before, or while
   * another operator holds the agent. The same operator's newer delegation replaces its older one,
   * which is ended so it cannot come back.
   */
  async register(signed: FleetDelegation): Promise<Registration> {
    if (signed.expiry * 1000 <= this.now()) return { ok: false, code: 'delegation_expired' };
    if ((await this.store.get(endedDelegationKey(signed.agent, signed.nonce))) !== null) return { ok: false, code: 'delegation_revoked' };
    const next: StoredDelegation = { operator: signed.operator, expiry: signed.expiry, nonce: signed.nonce, registered_at: this.now() };
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const { text, delegation: current } = await this.read(signed.agent);
      if (current !== null && current.operator !== signed.operator) return { ok: false, code: 'agent_delegated_elsewhere' };
      if (current !== null && current.nonce === signed.nonce) return { ok: true, delegation: current };
      if (!(await this.addToFleet(signed.operator, signed.agent))) return { ok: false, code: 'fleet_full' };
      if (!(await this.store.compareAndSet(delegationKey(signed.agent), text, JSON.stringify(next), this.untilExpiry(next)))) continue;
      if (current !== null) await this.markEnded(signed.agent, current);
      return { ok: true, delegation: next };
    }
    throw new Error(`the delegation of ${signed.agent} changed under ${MAX_ATTEMPTS} updates in a row; retry`);
  }

  /** Ends the agent's delegation when it names `operator` (only then: null otherwise), and takes it off the operator's fleet. */
  async end(agent: string, operator?: string): Promise<StoredDelegation | null> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const current = await this.active(agent);
      if (current === null || (operator !== undefined && current.delegation.operator !== operator.toLowerCase())) return null;
      await this.markEnded(agent, current.delegation);
      // Replaced by an already-expired entry rather than deleted, so a registration in between is never lost.
      if (!(await this.store.compareAndSet(delegationKey(agent), current.text, JSON.stringify({ ...current.delegation, expiry: 0 }), 60_000))) continue;
      await this.removeFromFleet(current.delegation.operator, agent);
      return current.delegation;
    }
    throw new Error(`the delegation of ${agent} changed under ${MAX_ATTEMPTS} updates in a row; retry`);
  }

  /** The agents in the operator's fleet whose delegation to it is still in force, oldest registration first. */
  async fleet(operator: string): Promise<Array<{ agent: string; delegation: StoredDelegation }>> {
    const agents = parseFleet(await this.store.get(fleetKey(operator)));
    const found = await Promise.all(agents.map(async (agent) => ({ agent, delegation: await this.activeFor(operator, agent) })));
    return found.filter((entry): entry is { agent: string; delegation: StoredDelegation } => entry.delegation !== null);
  }

  /** False when the fleet is full of agents still delegated to the operator; entries that lapsed make room. */
  private async addToFleet(operator: string, agent: string): Promise<boolean> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const text = await this.store.get(fleetKey(operator));
      let agents = parseFleet(text);
      if (agents.includes(agent)) return true;
      if (agents.length >= MAX_FLEET_AGENTS) agents = (await this.fleet(operator)).map((entry) => entry.agent);
      if (agents.length >= MAX_FLEET_AGENTS) return false;
      if (await this.store.compareAndSet(fleetKey(operator), text, JSON.stringify([...agents, agent]), 0)) return true;
    }
    throw new Error(`the fleet of ${operator} changed under ${MAX_ATTEMPTS} updates in a row; retry`);
  }

  private async removeFromFleet(operator: string, agent: string): Promise<void> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const text = await this.store.get(fleetKey(operator));
      const agents = parseFleet(text);
      if (!agents.includes(agent)) return;
      if (await this.store.compareAndSet(fleetKey(operator), text, JSON.stringify(agents.filter((a) => a !== agent)), 0)) return;
    }
  }

  /** Kept until the delegation would have expired, after which its signature is refused as expired anyway. */
  private async markEnded(agent: string, delegation: StoredDelegation): Promise<void> {
    await this.store.set(endedDelegationKey(agent, delegation.nonce), String(this.now()), this.untilExpiry(delegation));
  }

  /** At least a second, so an expiry reached meanwhile never reads as "no expiry" (a TTL of 0). */
  private untilExpiry(delegation: StoredDelegation): number {
    return Math.max(1000, delegation.expiry * 1000 - this.now());
  }
}

/** A stored value that is not a delegation fails the request closed (503), never reads as none. */
function parseStored(text: string): StoredDelegation {
  const parsed = JSON.parse(text) as Partial<StoredDelegation>;
  if (typeof parsed.operator !== 'string' || typeof parsed.expiry !== 'number' || typeof parsed.nonce !== 'string') {
    throw new Error('a stored fleet delegation is malformed');
  }
  return { operator: parsed.operator, expiry: parsed.expiry, nonce: parsed.nonce, registered_at: Number(parsed.registered_at ?? 0) };
}

function parseFleet(text: string | null): string[] {
  if (text === null) return [];
  const parsed = JSON.parse(text) as unknown;
  if (!Array.isArray(parsed)) throw new Error('a stored fleet index is malformed');
  return parsed.map(String);
}
