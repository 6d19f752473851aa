// Re-deriving one verdict from the facts kept beside its record (ARCHITECTURE.md "Recorded facts").
import { isDeepStrictEqual } from 'node:util';
import type { FactsLine } from '../../audit/record/audit-log.js';
import { FactsDocumentCheck } from '../../audit/record/facts-uses.js';
import { outcomeNamed, type VerdictOutcome } from '../../audit/record/outcome.js';
import { requestOf, type StoredRecord } from '../../audit/record/record.js';
import { SCORING_TABLE_HASH } from '../recorded-facts.js';
import { resolveFacts } from '../resolve-facts.js';
import { evaluateRisk } from '../../risk/evaluate-risk.js';
import { ENGINE_VERSION } from '../../risk/scoring-table.js';

export type ReplayProblem =
  | 'facts_missing' | 'facts_mismatch' | 'facts_unreadable' | 'outcome_missing' | 'outcome_mismatch' | 'verdict_differs' | 'rules_changed';

export interface ReplayFinding {
  seq: number;
  /** On a partitioned log, the chain `seq` counts in. */
  chain?: number;
  problem: ReplayProblem;
  detail: string;
}

/** What one record's replay found: nothing to replay (a format 1 record), reproduced, or a finding. */
export type ReplayOutcome = { kind: 'no_facts' } | { kind: 'reproduced' } | { kind: 'finding'; finding: ReplayFinding };

const finding = (seq: number, problem: ReplayProblem, detail: string): ReplayOutcome => ({ kind: 'finding', finding: { seq, problem, detail } });

/**
 * The facts must hash to the record's `facts_hash` (and a format 3 record's outcome document to its `outcome_hash`);
 * the pure engine, given their input, must give the record's decision, score and reasons; and the record's tier and
 * price must be the input's. Facts judged under another engine version or scoring table are `rules_changed` when
 * the verdict no longer follows, not `verdict_differs`: the rules moved, not the record.
 */
export function replayRecord(
  stored: StoredRecord, facts: FactsLine | null, shared?: ReadonlyMap<string, string>, documents = new FactsDocumentCheck(),
): ReplayOutcome {
  if (stored.facts_hash === undefined) return { kind: 'no_facts' };
  const { seq } = stored;
  if (facts === null) return finding(seq, 'facts_missing', `no facts are kept for record ${seq} (facts_hash ${stored.facts_hash})`);
  // The facts and every shared document they name must hash to what names them (ARCHITECTURE.md "Recorded facts").
  const problem = documents.problem(stored.facts_hash, facts.text, shared);
  if (problem === 'facts_mismatch') return finding(seq, 'facts_mismatch', 'the facts kept beside the record, or a shared document they name, do not hash to the hash that names them');
  if (problem === 'facts_missing') return finding(seq, 'facts_missing', `a shared document the facts of record ${seq} name is not kept`);
  const outcome = recordedOutcome(stored, shared);
  if (outcome === 'outcome_missing') return finding(seq, outcome, `the outcome document record ${seq} names (outcome_hash ${stored.outcome_hash}) is not kept`);
  if (outcome === 'outcome_mismatch') return finding(seq, outcome, `the outcome document kept for record ${seq} does not hash to its outcome_hash ${stored.outcome_hash}, or is not an outcome`);
  const record = { ...stored, ...outcome };
  const resolved = resolveFacts(facts.text, shared, { request: requestOf(record), ts: record.ts });
  if (!resolved.ok) return finding(seq, 'facts_unreadable', resolved.detail);
  const recorded = resolved.facts;
  let result;
  try {
    result = evaluateRisk(recorded.input);
  } catch (error) {
    return finding(seq, 'facts_unreadable', `the engine could not read the facts: ${(error as Error).message}`);
  }
  const { input } = recorded;
  const differences = [
    result.decision !== record.decision ? `decision ${result.decision}, recorded ${record.decision}` : null,
    result.risk_score !== record.risk_score ? `risk_score ${result.risk_score}, recorded ${record.risk_score}` : null,
    !isDeepStrictEqual(result.reasons, record.reasons) ? `reasons ${JSON.stringify(result.reasons)}, recorded ${JSON.stringify(record.reasons)}` : null,
    input.policy?.tier !== record.tier ? `tier ${String(input.policy?.tier)} in the facts, ${record.tier} in the record` : null,
    input.price?.usd !== record.price_usd || input.price?.source !== record.price_source
      ? `price ${String(input.price?.usd)} (${String(input.price?.source)}) in the facts, ${record.price_usd} (${record.price_source}) in the record` : null,
  ].filter((difference): difference is string => difference !== null);
  if (differences.length === 0) return { kind: 'reproduced' };
  const sameRules = recorded.engine?.scoring_table_hash === SCORING_TABLE_HASH && recorded.engine?.version === ENGINE_VERSION;
  if (!sameRules) {
    return finding(seq, 'rules_changed', `judged under engine ${String(recorded.engine?.version)} and table ${String(recorded.engine?.scoring_table_hash).slice(0, 12)}; today: ${differences.join('; ')}`);
  }
  return finding(seq, 'verdict_differs', differences.join('; '));
}

/** The outcome a record states: its own members (formats 1 and 2), or the document its `outcome_hash` names (format 3). */
function recordedOutcome(record: StoredRecord, shared: ReadonlyMap<string, string> | undefined): VerdictOutcome | 'outcome_missing' | 'outcome_mismatch' {
  if (record.outcome_hash === undefined) return { reasons: record.reasons!, price_usd: record.price_usd!, price_source: record.price_source! };
  const text = shared?.get(record.outcome_hash);
  if (text === undefined) return 'outcome_missing';
  return outcomeNamed(record.outcome_hash, text) ?? 'outcome_mismatch';
}
