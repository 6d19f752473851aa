// A listing gives a format 3 record's outcome (`reasons`, `price_usd`, `price_source`) beside its stored fields: the
// document its `outcome_hash` names, remembered by hash or read from where the record's facts are kept
// (ARCHITECTURE.md "Audit record"). Both backends list through it.
import { DependencyError } from '../../catalogue/failures.js';
import type { AuditFactsSource, AuditRecord } from './audit-log.js';
import { knownOutcome, outcomeNamed, type VerdictOutcome } from './outcome.js';
import type { StoredRecord } from './record.js';

/**
 * A listing that cannot give a record's outcome: its document is not kept, or no longer hashes to its name. A 503
 * `audit_facts_damaged` whose detail names the record and where its documents are kept: a listing never shows an
 * outcome the record was not answered with.
 */
export class OutcomeUnreadableError extends DependencyError {
  override name = 'OutcomeUnreadableError';
  constructor(words: string) {
    super({ code: 'audit_facts_damaged', words }, words);
  }
}

/**
 * The records as a listing gives them: formats 1 and 2 as stored, format 3 with its outcome resolved beside it. A
 * document not yet known is read with the record's facts (one read for the few outcomes a block's verdicts share).
 */
export async function withOutcomes(records: readonly StoredRecord[], facts: AuditFactsSource): Promise<AuditRecord[]> {
  const listed: AuditRecord[] = [];
  for (const record of records) {
    if (record.outcome_hash === undefined) {
      listed.push(record as AuditRecord);
      continue;
    }
    const outcome = knownOutcome(record.outcome_hash) ?? await readOutcome(record, facts);
    listed.push({ ...record, reasons: outcome.reasons.slice(), price_usd: outcome.price_usd, price_source: outcome.price_source });
  }
  return listed;
}

async function readOutcome(record: StoredRecord, facts: AuditFactsSource): Promise<VerdictOutcome> {
  const hash = record.outcome_hash!;
  const kept = (await facts.readFacts(record.seq, 1)).find((line) => line.hash === hash);
  const outcome = kept === undefined ? null : outcomeNamed(hash, kept.text);
  if (outcome !== null) return outcome;
  const what = kept === undefined ? 'is not kept' : 'no longer hashes to its name';
  throw new OutcomeUnreadableError(
    `audit record ${record.seq} names the outcome document ${hash}, which ${what} in ${facts.factsLocation}, so its reasons ` +
    `and price cannot be listed; restore ${facts.factsLocation} from a copy (npm run audit:verify lists every damaged record)`,
  );
}
