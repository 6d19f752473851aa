// The facts half of verification: each record's facts, kept beside the chain, must hash to the facts_hash the
// record names, or the record counts as tampered and the problem names where they are kept (ARCHITECTURE.md
// "Recorded facts"). Pure: the callers read records and facts as they stream; this judges and counts.
import type { FactsLine, RecordWithFacts } from '../record/audit-log.js';
import { FactsDocumentCheck, type FactsProblemKind } from '../record/facts-uses.js';
import { factsHashOf, lineHashMatches } from '../record/record.js';
import { outcomeHashOf } from '../record/outcome.js';
import { sha256Hex } from '../record/sha256.js';
import { DEFAULT_MAX_PROBLEMS, type ChainProblem, type VerifyReport } from './chain-walk.js';

/** `outcome_missing`: the outcome document a format 3 record names is not kept; `outcome_mismatch`: it is, and hashes to something else. */
export type KeptDocumentProblem = FactsProblemKind | 'outcome_missing' | 'outcome_mismatch';

/**
 * The problem with the facts of the record stored as `line`, or null: they and every shared document they name
 * (`shared`, by hash), and a format 3 record's outcome document, hash to what names them, it names none (format 1),
 * or its own bytes fail (the chain walk reports those, so a record is never counted twice). The record's bytes are
 * hashed only when a document fails, so a sound log costs one hash of each facts text and one of each shared document.
 */
export function factsProblem(
  line: Uint8Array, facts: FactsLine | null, shared?: ReadonlyMap<string, string>, documents = new FactsDocumentCheck(),
): KeptDocumentProblem | null {
  const named = factsHashOf(line);
  if (named === null) return null;
  const problem = documents.problem(named, facts !== null && facts.hash === named ? facts.text : undefined, shared) ?? outcomeProblem(line, shared, documents);
  return problem !== null && lineHashMatches(line, sha256Hex) ? problem : null;
}

/** A format 3 record's outcome document (ARCHITECTURE.md "Audit record") against the `outcome_hash` that names it. */
function outcomeProblem(line: Uint8Array, shared: ReadonlyMap<string, string> | undefined, documents: FactsDocumentCheck): KeptDocumentProblem | null {
  const named = outcomeHashOf(line);
  if (named === null) return null;
  const text = shared?.get(named);
  if (text === undefined) return 'outcome_missing';
  return documents.holds(named, text) ? null : 'outcome_mismatch';
}

/** One facts line as it may be served: its text must hash to the hash it is listed under. */
export function factsLineSound(facts: FactsLine): boolean {
  return sha256Hex(facts.text) === facts.hash;
}

/** Counts the facts problems of a stream of records, keeping the first few, for a chain walk's report. */
export class FactsCheck {
  private tampered = 0;
  private readonly found: ChainProblem[] = [];
  private readonly documents = new FactsDocumentCheck();

  /** `location`: where the facts are kept, as the problems name it (`facts.log`, its path, a Redis key). */
  constructor(private readonly location: string, private readonly maxProblems = DEFAULT_MAX_PROBLEMS) {}

  add(seq: number, line: Uint8Array, facts: FactsLine | null, shared?: ReadonlyMap<string, string>): void {
    const problem = factsProblem(line, facts, shared, this.documents);
    if (problem === null) return;
    this.tampered++;
    if (this.found.length < this.maxProblems) {
      this.found.push({ seq, hash: Buffer.from(line.buffer, line.byteOffset, 64).toString('latin1'), problem, location: this.location });
    }
  }

  /** The chain walk's report with these problems counted in, in seq order. */
  merge(report: VerifyReport): VerifyReport {
    if (this.tampered === 0) return report;
    const problems = [...report.problems, ...this.found].sort((a, b) => a.seq - b.seq).slice(0, this.maxProblems);
    const firstFacts = this.found[0]?.seq ?? Infinity;
    return {
      total: report.total,
      tampered: report.tampered + this.tampered,
      healthy: false,
      firstBrokenSeq: Math.min(report.firstBrokenSeq ?? Infinity, firstFacts),
      problems,
    };
  }
}

/** Streams records with their kept facts (a backend's files, read alongside the chain walk) through one check. */
export async function checkKeptFacts(location: string, items: AsyncIterable<RecordWithFacts>): Promise<FactsCheck> {
  const check = new FactsCheck(location);
  for await (const { seq, line, facts, shared } of items) check.add(seq, Buffer.from(line, 'utf8'), facts, shared);
  return check;
}
