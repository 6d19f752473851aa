// Which facts lines a group commit writes: each record's own facts, and before them the shared documents they name and
// the record's outcome document, each only when the record's scope does not keep it yet (ARCHITECTURE.md "Recorded facts"). The file backend uses it.
import type { FactsLine } from './audit-log.js';
import type { SealedRecord } from './record.js';

/**
 * A scope is what a reader reads at once: the file backend's page of seqs, so the facts of any record are found,
 * with every shared document they name, in the one page it reads already; for Redis, which keeps a document once by
 * its hash however often it is sent, one group commit.
 */
export class SharedFactsWrites {
  private scope = Number.NaN;
  private readonly written = new Set<string>();

  constructor(private readonly scopeOf: (seq: number) => number) {}

  /**
   * The lines to write for these records, in order: a shared document first met in its scope, the record's outcome
   * document, then each record's own facts, also once a scope: facts are named by their hash, and a fleet wallet judged again on the same facts names
   * the document already kept (a reader finds it by hash in the scope it reads, log-lines.ts).
   */
  lines(sealed: readonly SealedRecord[]): FactsLine[] {
    const lines: FactsLine[] = [];
    // Indexed loops: run once a group, this code seldom gets optimised, and unoptimised for-of allocates at each step.
    for (let i = 0; i < sealed.length; i++) {
      const { record, facts, outcome } = sealed[i]!;
      if (!facts) continue;
      const scope = this.scopeOf(record.seq);
      if (scope !== this.scope) this.forget(scope);
      const shared = facts.shared;
      if (shared) for (let j = 0; j < shared.length; j++) this.once(lines, record.seq, shared[j]!);
      // A format 3 record's outcome is a document of its own, kept like a shared one (ARCHITECTURE.md "Audit record").
      if (outcome) this.once(lines, record.seq, outcome);
      this.once(lines, record.seq, facts);
    }
    return lines;
  }

  /** Adds the document's line under `seq` unless the scope keeps it already. */
  private once(lines: FactsLine[], seq: number, document: { hash: string; text: string }): void {
    if (this.written.has(document.hash)) return;
    this.written.add(document.hash);
    lines.push({ seq, hash: document.hash, text: document.text });
  }

  /** After a write that failed (its lines may be cut) and at a new scope: every document is written again at its next use. */
  forget(scope = Number.NaN): void {
    this.scope = scope;
    this.written.clear();
  }
}
