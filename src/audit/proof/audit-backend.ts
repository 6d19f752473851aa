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
  /**
   * Where each chain it keeps under `config`'s settings ended, and the latest signed checkpoint, read without opening
   * the log for writing: a new epoch's handover record names them (ARCHITECTURE.md "DATA_DIR epoch"). Rejects, saying
   * why, when they cannot be read.
   */
  chainEnds(config: Readonly<Config>): Promise<OldChainEnds>;
  /** Only a store that several DATA_DIRs share (Redis): its own note of the chain layout, so a fresh DATA_DIR cannot fork it. */
  layout?: SharedLayout;
}

/** Where one chain ended: its last seq and that record's hash (its head); 0 and 64 zeros when it is empty. */
export interface ChainEnd {
  chain: number;
  final_seq: number;
  final_hash: string;
}

/** A backend's chains as they ended, and the latest signed checkpoint over them as stored (null when none was signed). */
export interface OldChainEnds {
  chains: ChainEnd[];
  checkpoint: Record<string, unknown> | null;
}

/** The chain layout a shared store keeps of itself: how many chains, and the DATA_DIR epoch that last set it. */
export interface ChainLayout {
  partitions: number;
  epoch: string;
}

export interface SharedLayout {
  /** The layout the store holds; one inferred from the chains it holds when it has no note yet (then written); null when it holds none. */
  read(config: Readonly<Config>): Promise<ChainLayout | null>;
  /** Writes `layout` only when the store holds none yet, in one step, and answers the layout held after: `layout` when it won, the first writer's otherwise. */
  claim(config: Readonly<Config>, layout: ChainLayout): Promise<ChainLayout>;
  write(config: Readonly<Config>, layout: ChainLayout): Promise<void>;
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
