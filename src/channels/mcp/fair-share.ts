// Which session a full MCP table closes to admit a newcomer: the idlest of the address holding the most (ARCHITECTURE "MCP sessions").

export interface HeldSession {
  id: string;
  ip: string;
  lastSeen: number;
}

/**
 * The session to close so that `newcomer` may open one in a full table, or undefined when it may not.
 *
 * Idleness alone is no defence: a crowd that pings keeps every one of its sessions fresher than a
 * client that has not arrived yet. So the victim comes from the address holding the most sessions
 * (initializations under way included, from `starting`), the idlest of them, and only when that
 * address holds more than the newcomer does: no address can keep another below its own share, and
 * a newcomer holding none always gets in while anyone holds one.
 */
export function sessionToEvict(
  sessions: Iterable<HeldSession>,
  newcomer: string,
  starting: ReadonlyMap<string, number>,
): HeldSession | undefined {
  const held = new Map<string, { idlest: HeldSession; holds: number }>();
  for (const session of sessions) {
    const entry = held.get(session.ip);
    if (!entry) held.set(session.ip, { idlest: session, holds: 1 + (starting.get(session.ip) ?? 0) });
    else {
      entry.holds += 1;
      if (session.lastSeen < entry.idlest.lastSeen) entry.idlest = session;
    }
  }
  const newcomerHolds = held.get(newcomer)?.holds ?? starting.get(newcomer) ?? 0;
  let victim: HeldSession | undefined;
  let victimHolds = newcomerHolds;
  for (const { idlest, holds } of held.values()) {
    if (holds < victimHolds || holds <= newcomerHolds) continue;
    if (holds > victimHolds || !victim || idlest.lastSeen < victim.lastSeen) {
      victim = idlest;
      victimHolds = holds;
    }
  }
  return victim;
}
