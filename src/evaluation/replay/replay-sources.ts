// Where a replay reads records and the facts kept beside them: a running service, or where a backend keeps them.
import { fetchAuditPage } from '../../audit/verify/bulk-sources.js';
import { parseFactsLine, type FactsLine, type RecordsWithFacts, type RecordWithFacts } from '../../audit/record/audit-log.js';
import { factsHashOf } from '../../audit/record/record.js';
import { PATHS } from '../../catalogue/published-facts.js';

/** One stored record line and the facts kept for its seq (null when none were found). */
export type ReplayItem = RecordWithFacts;
export type ReplaySource = RecordsWithFacts;

/** What reads records with their facts where a backend keeps them (src/audit/proof/audit-backend.ts). */
export interface FactsReader {
  recordsWithFacts(location: string, from: number, to: number): Promise<RecordsWithFacts | null>;
}

const PAGE = 1000;

/** A running service's base URL, or a location one of the backends reads (the file log's data directory or audit.log). */
export async function openReplaySource(location: string, from: number, to: number, backends: readonly FactsReader[], chain?: number): Promise<ReplaySource> {
  if (/^https?:\/\//.test(location)) return chain === undefined ? everyChain(location, from, to) : serviceSource(location, from, to, chain);
  for (const backend of backends) {
    const source = await backend.recordsWithFacts(location, from, to);
    if (source !== null) return source;
  }
  throw new Error(`${location} holds no audit log: neither audit/audit.log nor audit.log`);
}

/**
 * Every chain of the service: one, or on a partitioned log (the export says how many, `x-audit-chains`) the
 * range `from`..`to` of each chain in turn, each item naming its chain (ARCHITECTURE.md "Partitioned audit chains").
 */
async function everyChain(base: string, from: number, to: number): Promise<ReplaySource> {
  const first = await fetchText(base, PATHS.auditExport, from, 1);
  if (first.chains <= 1) return serviceSource(base, from, to, undefined, first);
  const sources = await Promise.all(Array.from({ length: first.chains }, (_, chain) => serviceSource(base, from, to, chain)));
  async function* items(): AsyncGenerator<ReplayItem> {
    for (const source of sources) yield* source.items;
  }
  return { name: `${base} (${first.chains} chains)`, total: sources.reduce((sum, source) => sum + (source.total ?? 0), 0), items: items() };
}

/**
 * Pages of GET /api/v1/audit/export and /api/v1/audit/facts, side by side; of chain `chain` on a partitioned log.
 * `first`: the export's page at `from` when the caller read it already (it names the head).
 */
async function serviceSource(base: string, from: number, to: number, chain?: number, first?: ExportPage): Promise<ReplaySource> {
  first ??= await fetchText(base, PATHS.auditExport, from, 1, chain);
  const head = Number(first.head);
  if (!Number.isSafeInteger(head)) throw new Error(`${base} did not answer with an audit head; is it this service?`);
  const last = Math.min(to, head);
  async function* items(): AsyncGenerator<ReplayItem> {
    for (let next = from; next <= last; next += PAGE) {
      const limit = Math.min(PAGE, last - next + 1);
      const [records, facts] = await Promise.all([fetchText(base, PATHS.auditExport, next, limit, chain), fetchText(base, PATHS.auditFacts, next, limit, chain)]);
      // A page lists each record's facts under its seq and, before them, the shared documents they name (by hash).
      const bySeq = new Map<string, FactsLine>();
      const shared = new Map<string, string>();
      for (const text of facts.text.split('\n')) {
        const line = parseFactsLine(text);
        if (line) bySeq.set(`${line.seq} ${line.hash}`, line), shared.set(line.hash, line.text);
      }
      const lines = records.text.split('\n').filter((line) => line !== '');
      for (const [i, line] of lines.entries()) {
        const own = bySeq.get(`${next + i} ${factsHashOf(Buffer.from(line.slice(0, 400), 'utf8'))}`) ?? null;
        yield { seq: next + i, line, facts: own, shared, ...(chain === undefined ? {} : { chain }) };
      }
    }
  }
  return { name: chain === undefined ? base : `${base} chain ${chain}`, total: Math.max(0, last - from + 1), items: items() };
}

interface ExportPage {
  text: string;
  head: string | null;
  chains: number;
}

async function fetchText(base: string, path: string, from: number, limit: number, chain?: number): Promise<ExportPage> {
  const which = chain === undefined ? '' : `&chain=${chain}`;
  const response = await fetchAuditPage(new URL(`${path}?from_seq=${from}&limit=${limit}${which}`, base));
  return { text: await response.text(), head: response.headers.get('x-audit-head-seq'), chains: Number(response.headers.get('x-audit-chains') ?? 1) };
}
