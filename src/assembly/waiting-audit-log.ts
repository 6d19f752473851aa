// The audit backend while a start on a full disk waits to open it: the log takes no record and says why, and once
// it opens every call is the backend's own (ARCHITECTURE.md "A full disk at start").
import { DependencyError, failureOf } from '../catalogue/failures.js';
import type { OpenAuditBackend } from '../audit/proof/audit-backend.js';
import type { AuditEntry, AuditHead, AuditLogStats, AuditRecord, FactsLine } from '../audit/record/audit-log.js';
import type { VerifiableAuditLog } from '../audit/verify/audit-verifier.js';
import type { StoreState } from '../store/store-state.js';

/** Where the backend comes from: null while it waits, with the reason. */
export interface BackendOpening {
  backend(): OpenAuditBackend | null;
  problem(): string | null;
}

const NOTHING_WRITTEN: AuditLogStats = Object.freeze({ appends: 0, writes: 0, fsyncs: 0, bytes: 0, conflicts: 0 });

/**
 * Stands for the backend's log: readiness() gives the reason, so evaluations answer 503 `audit_unavailable`
 * and a paid call is refused before settlement, as for a log whose writes fail; reads are refused the same way.
 * The proof tree follows the backend's own log (onAppended is set on it when it opens).
 */
class WaitingAuditLog implements VerifiableAuditLog {
  /** `opened` picks the log this one stands for out of the backend once it is open: its log, or one of its chains. */
  constructor(private readonly opening: BackendOpening, private readonly opened: (backend: OpenAuditBackend) => VerifiableAuditLog | undefined) {}

  private current(): VerifiableAuditLog | undefined {
    const backend = this.opening.backend();
    return backend ? this.opened(backend) : undefined;
  }

  private open(): VerifiableAuditLog {
    const log = this.current();
    if (log) return log;
    throw new DependencyError(failureOf('audit_unavailable'), `the audit log is not open: ${this.opening.problem() ?? 'not yet'}`);
  }

  get stats(): AuditLogStats {
    return this.current()?.stats ?? NOTHING_WRITTEN;
  }

  get factsLocation(): string {
    return this.current()?.factsLocation ?? 'the audit log, not open yet';
  }

  readiness(wallet?: string): string | null {
    const log = this.current();
    return log ? log.readiness(wallet) : (this.opening.problem() ?? 'the audit log is not open yet');
  }

  async append(entry: AuditEntry): Promise<AuditRecord> {
    return this.open().append(entry);
  }

  async head(): Promise<AuditHead> {
    return this.open().head();
  }

  async listGlobal(limit: number): Promise<AuditRecord[]> {
    return this.open().listGlobal(limit);
  }

  async listWallet(wallet: string, limit: number): Promise<AuditRecord[]> {
    return this.open().listWallet(wallet, limit);
  }

  async readLines(fromSeq: number, count: number): Promise<Buffer[]> {
    return this.open().readLines(fromSeq, count);
  }

  async readWalletLines(wallet: string, count: number): Promise<Array<Buffer | null>> {
    return this.open().readWalletLines(wallet, count);
  }

  async readFacts(fromSeq: number, count: number): Promise<FactsLine[]> {
    return this.open().readFacts(fromSeq, count);
  }

  /** The opening closes what it opened. */
  async close(): Promise<void> {}
}

/**
 * The backend as the assembly wires it before it opens: its log stands in as above, its status names the
 * backend and the fsync setting, its store state and threads are the backend's once open. With AUDIT_PARTITIONS
 * K > 1 each of its K chains stands in the same way, so the verifier and the audit routes are built with K chains
 * before any is open (ARCHITECTURE.md "Partitioned audit chains").
 */
export function waitingBackend(opening: BackendOpening, kind: string, fsync: string, partitions: number): OpenAuditBackend {
  const storeState: StoreState = {
    problem: () => opening.backend()?.storeState.problem() ?? null,
    tokensNotBeforeMs: () => opening.backend()?.storeState.tokensNotBeforeMs() ?? null,
  };
  const notOpen = () => Promise.reject(new Error('the audit log is not open yet'));
  return {
    log: new WaitingAuditLog(opening, (backend) => backend.log),
    openCheckpoints: notOpen,
    storeState,
    status: { kind, fsync, watch: () => opening.backend()?.status.watch() ?? null },
    threads: () => opening.backend()?.threads() ?? {},
    ...(partitions > 1 ? {
      partitions: {
        chains: Array.from({ length: partitions }, (_, p) => new WaitingAuditLog(opening, (backend) => backend.partitions?.chains[p])),
        openCheckpoints: notOpen,
      },
    } : {}),
  };
}
