// What an audit backend implements (ARCHITECTURE.md "Audit backends"): its log, its checkpoint store, and how a
// tool reads its chain and its facts without the service; src/audit/backends.ts lists them, the assembly opens one.
import type { Config } from '../../config.js';
import type { StoreState } from '../../store/store-state.js';
import type { RecordsWithFacts } from '../record/audit-log.js';
import type { VerifiableAuditLog } from '../verify/audit-verifier.js';
import type { ChainSource } from '../verify/bulk-sources.js';
import type { PublishedKey } from './checkpoint.js';
import type { CheckpointStore } from './checkpoint-store.js';
import type { PartitionedCheckpointStore } from './partitioned-tree.js';

export interface AuditBackend {
  /** AUDIT_STORE's value for it. */
  readonly name: string;
  /** Whether the configuration asks for this backend (the list's last, the file log, takes whatever is left). */
  selected(config: Readonly<Config>): boolean;
  open(config: Readonly<Config>, context: BackendContext): Promise<OpenAuditBackend>;
  /** A whole chain, read where this backend keeps it (a data directory, a log file); null when the location is not its own. */
  chainSource(location: string): Promise<ChainSource | null>;
  /** Records `from`..`to` with the facts kept beside them, for replay; null when the location is not its own. */
  recordsWithFacts(location: string, from: number, to: number): Promise<RecordsWithFacts | null>;
}

export interface BackendContext {
  log: (line: string) => void;
  now: () => number;
}

/** A backend opened for the service: the log and everything that depends on which log it is. */
export interface OpenAuditBackend {
  log: VerifiableAuditLog;
  /** Opens where signed checkpoints are kept; instances sharing a chain must sign with one key. */
  openCheckpoints(key: PublishedKey): Promise<CheckpointStore>;
  /** Whether the store behind the log can be trusted (a shared Redis can lose state); the file log's always can. */
  storeState: StoreState;
  /** What /status.json says of the log beside its head and readiness. */
  status: { kind: string; fsync: string; watch(): Record<string, unknown> | null };
  /** Busy seconds of the backend's own threads, by name, for the metrics. */
  threads(): Record<string, number>;
  /**
   * Only when the log is K > 1 chains (AUDIT_PARTITIONS, ARCHITECTURE.md "Partitioned audit chains"): chain p
   * is `chains[p]`, `log` routes appends and wallet reads to them, and one checkpoint store signs them all.
   */
  partitions?: PartitionedBackend;
}

export interface PartitionedBackend {
  chains: readonly VerifiableAuditLog[];
  openCheckpoints(key: PublishedKey): Promise<PartitionedCheckpointStore>;
}
