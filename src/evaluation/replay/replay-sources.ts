// Where a replay reads records and the facts kept beside them: a data directory, a log file, or a running service.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { factsHashOf } from '../../audit/record/record.js';
import { fetchAuditPage, logPath } from '../../audit/verify/bulk-sources.js';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import type { FactsLine } from '../../audit/record/audit-log.js';
import { FACTS_FILE_NAME, parseFactsLine } from '../../audit/file/facts-file.js';
import { PATHS } from '../../catalogue/published-facts.js';

/** One stored record line and the facts kept for its seq (null when none were found). */
export interface ReplayItem {
  seq: number;
  line: string;
  facts: FactsLine | null;
}

export interface ReplaySource {
  name: string;
  /** Records in the range when known (a service says its head), else null. */
  total: number | null;
  items: AsyncIterable<ReplayItem>;
}

const PAGE = 1000;
/** A torn group commit leaves at most a batch of orphaned facts lines before the ones sealed again. */
const LOOKAHEAD = 8192;

export async function openReplaySource(location: string, from: number, to: number): Promise<ReplaySource> {
  if (/^https?:\/\//.test(location)) return serviceSource(location, from, to);
  const log = await logPath(location);
  return { name: log, total: null, items: fileItems(log, join(dirname(log), FACTS_FILE_NAME), from, to) };
}



/** Line n of the log is seq n; facts.log is read alongside, matched by seq and hash. */
async function* fileItems(logFile: string, factsFile: string, from: number, to: number): AsyncGenerator<ReplayItem> {
  const facts = await factsReader(factsFile);
  let seq = 0;
  for await (const line of createInterface({ input: createReadStream(logFile), crlfDelay: Infinity })) {
    seq++;
    if (seq < from) continue;
    if (seq > to) break;
    // factsHashOf reads a line's first 400 bytes; 400 characters hold at least that many.
    const hash = factsHashOf(Buffer.from(line.slice(0, 400), 'utf8'));
    yield { seq, line, facts: hash === null ? null : await facts.find(seq, hash) };
  }
  facts.close();
}

async function factsReader(path: string) {
  const exists = await stat(path).then((s) => s.isFile(), () => false);
  const lines = exists ? createInterface({ input: createReadStream(path), crlfDelay: Infinity })[Symbol.asyncIterator]() : null;
  const waiting = new Map<string, FactsLine>();
  let highest = 0;
  return {
    async find(seq: number, hash: string): Promise<FactsLine | null> {
      for (const [key, line] of waiting) if (line.seq < seq) waiting.delete(key);
      const key = `${seq} ${hash}`;
      while (!waiting.has(key) && lines !== null && highest <= seq + LOOKAHEAD) {
        const next = await lines.next();
        if (next.done) break;
        const line = parseFactsLine(next.value);
        if (line === null || line.seq < seq) continue;
        highest = Math.max(highest, line.seq);
        waiting.set(`${line.seq} ${line.hash}`, line);
      }
      const found = waiting.get(key) ?? null;
      waiting.delete(key);
      return found;
    },
    close(): void {
      void lines?.return?.();
    },
  };
}

/** Pages of GET /api/v1/audit/export and /api/v1/audit/facts, side by side. */
async function serviceSource(base: string, from: number, to: number): Promise<ReplaySource> {
  const first = await fetchText(base, PATHS.auditExport, from, 1);
  const head = Number(first.head);
  if (!Number.isSafeInteger(head)) throw new Error(`${base} did not answer with an audit head; is it this service?`);
  const last = Math.min(to, head);
  async function* items(): AsyncGenerator<ReplayItem> {
    for (let next = from; next <= last; next += PAGE) {
      const limit = Math.min(PAGE, last - next + 1);
      const [records, facts] = await Promise.all([fetchText(base, PATHS.auditExport, next, limit), fetchText(base, PATHS.auditFacts, next, limit)]);
      const bySeq = new Map<number, FactsLine>();
      for (const text of facts.text.split('\n')) {
        const line = parseFactsLine(text);
        if (line) bySeq.set(line.seq, line);
      }
      const lines = records.text.split('\n').filter((line) => line !== '');
      for (const [i, line] of lines.entries()) yield { seq: next + i, line, facts: bySeq.get(next + i) ?? null };
    }
  }
  return { name: base, total: Math.max(0, last - from + 1), items: items() };
}

async function fetchText(base: string, path: string, from: number, limit: number): Promise<{ text: string; head: string | null }> {
  const response = await fetchAuditPage(new URL(`${path}?from_seq=${from}&limit=${limit}`, base));
  return { text: await response.text(), head: response.headers.get('x-audit-head-seq') };
}
