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
   * The lines to write for these records, in order: a shared document first met in its scope, then each record's own
   * facts, also once a scope: facts are named by their hash, and a fleet wallet judged again on the same facts names
   * the document already kept (a reader finds it by hash in the scope it reads, log-lines.ts).
   */
  lines(sealed: readonly SealedRecord[]): FactsLine[] {
    const lines: FactsLine[] = [];
    for (const { record, facts, outcome } of sealed) {
      if (!facts) continue;
      const scope = this.scopeOf(record.seq);
      if (scope !== this.scope) this.forget(scope);
      // A format 3 record's outcome is a document of its own, kept like a shared one (ARCHITECTURE.md "Audit record").
      for (const shared of outcome ? [...(facts.shared ?? []), outcome] : facts.shared ?? []) {
        if (this.written.has(shared.hash)) continue;
        this.written.add(shared.hash);
        lines.push({ seq: record.seq, hash: shared.hash, text: shared.text });
      }
      if (this.written.has(facts.hash)) continue;
      this.written.add(facts.hash);
      lines.push({ seq: record.seq, hash: facts.hash, text: facts.text });
    }
    return lines;
  }

  /** After a write that failed (its lines may be cut) and at a new scope: every document is written again at its next use. */
  forget(scope = Number.NaN): void {
    this.scope = scope;
    this.written.clear();
  }
}
