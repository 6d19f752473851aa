// What the audit routes add on a partitioned log (AUDIT_PARTITIONS > 1): the `chain` a read names, and one verification over
// every chain (ARCHITECTURE.md "Partitioned audit chains"). With one chain none of it applies and nothing a client sees changes.
import type { VerifiableAuditLog, AuditVerifier } from '../../audit/verify/audit-verifier.js';
import type { VerifyReport } from '../../audit/verify/chain-walk.js';
import { validationFailed } from '../../http/responses.js';
import type { PlainRequest, PlainResponse } from '../../http/types.js';
import { AuditChainQuery } from '../../schemas/resources.js';
import { compileValidator, numericParams, type ValidationIssue } from '../../schemas/validator.js';

const validateChain = compileValidator(AuditChainQuery, 'query');

export type ChainChoice = { ok: true; chain: number; log: VerifiableAuditLog } | { ok: false; response: PlainResponse };

/** The chain a request names (`?chain=p`, default 0); the single chain ignores the parameter, as it always did. */
export function chosenChain(verifier: AuditVerifier, request: PlainRequest): ChainChoice {
  const { chains } = verifier;
  if (chains.length === 1) return { ok: true, chain: 0, log: verifier.log };
  const { chain, issues } = namedChain(request, chains.length, false);
  return issues.length > 0 ? { ok: false, response: validationFailed(issues) } : { ok: true, chain, log: chains[chain] };
}

/**
 * The chain `?chain=p` names among `count`, or the issues that say why it names none: one check for
 * the export routes (default 0) and the proofs (`required`: a seq names a record only within its chain).
 */
export function namedChain(request: PlainRequest, count: number, required: boolean): { chain: number; issues: ValidationIssue[] } {
  const query = validateChain(numericParams(AuditChainQuery, request.query));
  if (!query.ok) return { chain: 0, issues: query.detail };
  const chain = query.value.chain!;
  if ((required && request.query.chain === undefined) || chain >= count) {
    const msg = `this service keeps ${count} audit chains: name ${required ? "the record's chain" : 'one'}, 0 to ${count - 1}`;
    return { chain, issues: [{ loc: ['query', 'chain'], msg, type: 'value_error', input: chain }] };
  }
  return { chain, issues: [] };
}

/** Headers an export page adds on a partitioned log: which chain it read, and how many there are. */
export function chainHeaders(verifier: AuditVerifier, chain: number): Record<string, string> {
  return verifier.chains.length > 1 ? { 'x-audit-chain': String(chain), 'x-audit-chains': String(verifier.chains.length) } : {};
}

/**
 * The global verification over every chain (AuditVerifier.verifyChains): the totals summed, every problem naming its chain, and per chain its own verdict. The spec's global operation
 * stays one operation: healthy only when every chain is.
 */
export function everyChainReport(reports: VerifyReport[]) {
  const broken = reports.findIndex((report) => !report.healthy);
  return {
    total: reports.reduce((sum, report) => sum + report.total, 0),
    tampered: reports.reduce((sum, report) => sum + report.tampered, 0),
    healthy: broken === -1,
    records: reports.flatMap((report, chain) => report.problems.map((problem) => ({ chain, ...problem }))),
    first_broken_seq: broken === -1 ? null : reports[broken].firstBrokenSeq,
    first_broken_chain: broken === -1 ? null : broken,
    chains: reports.map((report, chain) => ({
      chain, total: report.total, tampered: report.tampered, healthy: report.healthy, first_broken_seq: report.firstBrokenSeq,
    })),
  };
}
