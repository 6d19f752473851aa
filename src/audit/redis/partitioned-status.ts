// What /status.json says of K audit chains: each chain's own state, and the log's, degraded while only some are down
// (ARCHITECTURE.md "Partitioned audit chains", readiness per chain).

/** One chain as the log sees it now: its watch's status document, and why it takes no append (null: it does). */
export interface ChainState {
  watch: Record<string, unknown> | null;
  unready: string | null;
}

export type PartitionedStatus = {
  status: 'ok' | 'degraded' | 'down';
  reason?: string;
  /** The chains that take no record now: only their wallets are refused. */
  chains_down: number[];
  chains: ChainEntry[];
};

type ChainEntry = Record<string, unknown> & { chain: number; status: string };

/**
 * A chain that cannot take a record is `down` with that reason (unless its watch already says why it is down).
 * The log is `down` only when every chain is, `degraded` when some are or a watch is degraded, else `ok`.
 */
export function partitionedStatus(states: readonly ChainState[]): PartitionedStatus {
  const chains = states.map(({ watch, unready }, chain): ChainEntry => {
    const entry = { chain, status: 'ok', ...(watch ?? {}) } as ChainEntry;
    return unready !== null && entry.status !== 'down' ? { ...entry, status: 'down', reason: unready } : entry;
  });
  const down = chains.filter((c) => c.status === 'down').map((c) => c.chain);
  const troubled = chains.filter((c) => c.status !== 'ok').map((c) => `audit chain ${c.chain}: ${String(c.reason ?? c.status)}`);
  if (troubled.length === 0) return { status: 'ok', chains_down: [], chains };
  if (down.length === chains.length) return { status: 'down', reason: troubled.join('; '), chains_down: down, chains };
  const spared = down.length === 0 ? '' : `; only the wallets of chain${down.length > 1 ? 's' : ''} ${down.join(', ')} are refused (503 audit_unavailable), the other chains take records`;
  return { status: 'degraded', reason: `${troubled.join('; ')}${spared}`, chains_down: down, chains };
}
