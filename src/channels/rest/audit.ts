// The audit operations: listings (global, per wallet), verification (global, per wallet) and a raw line export for bulk jobs;
// on a partitioned log the listings name each record's chain and the export reads the chain asked for (audit-partitions.ts).
import { PATHS } from '../../catalogue/published-facts.js';
import type { Static } from '@sinclair/typebox';
import { factsLineText, type FactsLine } from '../../audit/record/audit-log.js';
import { factsLineSound } from '../../audit/verify/facts-check.js';
import { readRange, type AuditVerifier, type VerifiableAuditLog } from '../../audit/verify/audit-verifier.js';
import type { VerifyReport } from '../../audit/verify/chain-walk.js';
import { DependencyError, failureOf, type Logger } from '../../catalogue/failures.js';
import { json, validationFailed } from '../../http/responses.js';
import type { PlainRequest, PlainResponse, Route } from '../../http/types.js';
import type { IpBucket, RateLimiter } from '../../http/rate-limiter.js';
import {
  AuditExportQuery, AuditFactsQuery, AuditGlobalResponse, AuditQuery, AuditVerifyGlobalResponse, AuditVerifyResponse, AuditWalletResponse, WalletPath,
} from '../../schemas/resources.js';
import { unavailable } from './unavailable.js';
import { chainHeaders, chosenChain, everyChainReport } from './audit-partitions.js';
import { compileValidator, numericParams, type Validated, type ValidationIssue } from '../../schemas/validator.js';

export interface AuditRouteDeps {
  verifier: AuditVerifier;
  limiter: RateLimiter;
  log: Logger;
}

const NEWLINE = Buffer.from('\n');
const validateQuery = compileValidator(AuditQuery, 'query');
const validatePath = compileValidator(WalletPath, 'path');
const validateExport = compileValidator(AuditExportQuery, 'query');
const validateFacts = compileValidator(AuditFactsQuery, 'query');

type Handle = (deps: AuditRouteDeps, request: PlainRequest) => Promise<PlainResponse>;

export function auditRoutes(deps: AuditRouteDeps): Route[] {
  const route = (pattern: string, bucket: IpBucket, handle: Handle): Route => ({
    method: 'get',
    pattern,
    handler: (request) => deps.limiter.guard(bucket, request.ip, () => guarded(deps, request, handle)),
  });
  return [
    route(`${PATHS.auditWallet}/:wallet`, 'auditList', listWallet),
    route(PATHS.auditGlobal, 'auditList', listGlobal),
    route(`${PATHS.auditVerify}/:wallet`, 'auditVerify', verifyWallet),
    route(PATHS.auditVerify, 'auditVerify', verifyGlobal),
    route(PATHS.auditExport, 'auditList', exportLines),
    route(PATHS.auditFacts, 'auditList', exportFacts),
  ];
}

/** A store that cannot be read answers 503: no listing or verdict on the chain is better than a wrong one. */
async function guarded(deps: AuditRouteDeps, request: PlainRequest, handle: Handle): Promise<PlainResponse> {
  try {
    return await handle(deps, request);
  } catch (error) {
    return unavailable(deps.log, request, 'No audit answer was produced; do not assume the chain is intact', error, failureOf('audit_unavailable'));
  }
}

type Parsed = { ok: true; wallet: string; limit: number } | { ok: false; response: PlainResponse };

/** Path and query together, so one 422 names every bad parameter, as FastAPI does. */
function parse(request: PlainRequest, withWallet: boolean): Parsed {
  const issues: ValidationIssue[] = [];
  let wallet = '';
  if (withWallet) {
    const path = validatePath({ wallet: request.params.wallet });
    if (path.ok) wallet = path.value.wallet.toLowerCase();
    else issues.push(...path.detail);
  }
  const query = validateQuery(numericParams(AuditQuery, request.query));
  if (!query.ok) issues.push(...query.detail);
  if (!query.ok || issues.length > 0) return { ok: false, response: validationFailed(issues) };
  // The validator fills in the schema's default (src/schemas/resources.ts), so `limit` is always set.
  return { ok: true, wallet, limit: query.value.limit! };
}

async function listWallet(deps: AuditRouteDeps, request: PlainRequest): Promise<PlainResponse> {
  const parsed = parse(request, true);
  if (!parsed.ok) return parsed.response;
  const records = await deps.verifier.log.listWallet(parsed.wallet, parsed.limit);
  const body: Static<typeof AuditWalletResponse> = { wallet: parsed.wallet, count: records.length, records };
  return json(200, body);
}

async function listGlobal(deps: AuditRouteDeps, request: PlainRequest): Promise<PlainResponse> {
  const parsed = parse(request, false);
  if (!parsed.ok) return parsed.response;
  const records = await deps.verifier.log.listGlobal(parsed.limit);
  const body: Static<typeof AuditGlobalResponse> = { count: records.length, records };
  return json(200, body);
}

/** The spec's fields, plus `first_broken_seq`; `records` holds the problems found (empty when healthy). */
function verdictOf(report: VerifyReport) {
  return {
    total: report.total,
    tampered: report.tampered,
    healthy: report.healthy,
    records: report.problems,
    first_broken_seq: report.firstBrokenSeq,
  };
}

async function verifyWallet(deps: AuditRouteDeps, request: PlainRequest): Promise<PlainResponse> {
  const parsed = parse(request, true);
  if (!parsed.ok) return parsed.response;
  const report = await deps.verifier.verifyWallet(parsed.wallet, parsed.limit);
  const body: Static<typeof AuditVerifyResponse> = { wallet: parsed.wallet, ...verdictOf(report) };
  // A wallet's records are all in one chain, which a partitioned log names.
  return json(200, deps.verifier.chains.length > 1 ? { ...body, chain: deps.verifier.chainOf(parsed.wallet) } : body);
}

async function verifyGlobal(deps: AuditRouteDeps, request: PlainRequest): Promise<PlainResponse> {
  const parsed = parse(request, false);
  if (!parsed.ok) return parsed.response;
  const reports = await deps.verifier.verifyChains(parsed.limit);
  if (reports.length > 1) return json(200, everyChainReport(reports));
  const body: Static<typeof AuditVerifyGlobalResponse> = verdictOf(reports[0]);
  return json(200, body);
}

/**
 * The stored lines themselves (`<hash> <canonical JSON>`, one per line), so a bulk
 * job hashes exactly the bytes the service hashed. Headers give the head the page
 * was read against and the `from_seq` of the next page.
 */
async function exportLines(deps: AuditRouteDeps, request: PlainRequest): Promise<PlainResponse> {
  const chain = chosenChain(deps.verifier, request);
  if (!chain.ok) return chain.response;
  return exportPage(deps, chain, validateExport(numericParams(AuditExportQuery, request.query)), async (from, count) => {
    const lines = (await readRange(chain.log, from, count)).filter((line): line is Buffer => line !== null);
    return Buffer.concat(lines.flatMap((line) => [line, NEWLINE]));
  });
}

/**
 * The facts behind records `from_seq` onward (`npm run audit:replay` re-derives each verdict from
 * them): `<seq> <facts_hash> <canonical JSON>` per record that has facts (records written before
 * facts were kept have none), so a client checks each against the record's `facts_hash`.
 */
async function exportFacts(deps: AuditRouteDeps, request: PlainRequest): Promise<PlainResponse> {
  const chain = chosenChain(deps.verifier, request);
  if (!chain.ok) return chain.response;
  return exportPage(deps, chain, validateFacts(numericParams(AuditFactsQuery, request.query)), async (from, count) => {
    const facts = count > 0 ? await chain.log.readFacts(from, count) : [];
    // A damaged line is never served: the client would take it for the facts the record was judged on.
    const damaged = facts.find((line) => !factsLineSound(line));
    if (damaged) throw new DependencyError({ code: 'audit_facts_damaged', words: factsDamage(damaged, chain.log.factsLocation) }, 'damaged facts');
    return Buffer.from(facts.map(factsLineText).join(''), 'utf8');
  });
}

function factsDamage(damaged: FactsLine, location: string): string {
  return `the facts kept for record ${damaged.seq} in ${location} do not hash to the facts_hash ${damaged.hash} they are listed under; ` +
    `they are damaged, and no facts of this page are served until ${location} is restored from a copy (npm run audit:verify lists every damaged record)`;
}

/** One page of a line export: the records from `from_seq`, at most `limit` and never past the head the page was read against. */
async function exportPage(
  deps: AuditRouteDeps,
  chain: { chain: number; log: VerifiableAuditLog },
  query: Validated<{ from_seq?: number; limit?: number }>,
  read: (from: number, count: number) => Promise<Buffer>,
): Promise<PlainResponse> {
  if (!query.ok) return validationFailed(query.detail);
  const head = await chain.log.head();
  // Both are filled in from the schema's defaults by the validator (src/schemas/resources.ts).
  const from = query.value.from_seq!;
  const count = Math.max(0, Math.min(query.value.limit!, head.seq - from + 1));
  return {
    status: 200,
    headers: {
      'x-audit-head-seq': String(head.seq), 'x-audit-head-hash': head.hash, 'x-audit-next-seq': String(from + count),
      ...chainHeaders(deps.verifier, chain.chain),
    },
    raw: { contentType: 'text/plain; charset=utf-8', text: await read(from, count) },
  };
}
