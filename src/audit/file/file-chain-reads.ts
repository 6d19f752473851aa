// Reading the file backend's chain without the service: audit.log for verification, audit.log and facts.log for replay.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseFactsLine, type FactsLine, type RecordsWithFacts, type RecordWithFacts } from '../record/audit-log.js';
import { factsHashOf } from '../record/record.js';
import { outcomeHashOf } from '../record/outcome.js';
import type { ChainSource } from '../verify/bulk-sources.js';
import { DEFAULT_CHUNK_BYTES, SpareBlocks, fileChunks } from '../verify/chunk-sources.js';
import { FACTS_FILE_NAME, SHARED_FACTS_PAGE } from './facts-file.js';
import { namedDocuments } from '../record/facts-uses.js';

const pageOf = (seq: number): number => Math.floor(seq / SHARED_FACTS_PAGE);

/** A torn group commit leaves at most a batch of orphaned facts lines before the ones sealed again. */
const LOOKAHEAD = 8192;

/** The log a location names: a data directory's audit/audit.log (or audit.log), or the file itself; null for a directory without one. */
export async function fileLogPath(location: string): Promise<string | null> {
  const info = await stat(location).catch(() => null);
  if (info === null) return null;
  if (!info.isDirectory()) return location;
  for (const candidate of [join(location, 'audit', 'audit.log'), join(location, 'audit.log')]) {
    if (await stat(candidate).then((s) => s.isFile(), () => false)) return candidate;
  }
  return null;
}

/** The stored log, read front to back in large blocks; the blocks the pool hands back are reused. */
export async function fileChainSource(location: string): Promise<ChainSource | null> {
  const path = await fileLogPath(location);
  if (path === null) return null;
  const { size } = await stat(path);
  const blocks = new SpareBlocks();
  const factsPath = join(dirname(path), FACTS_FILE_NAME);
  return {
    name: path, unit: 'bytes', total: size, chunks: fileChunks(path, DEFAULT_CHUNK_BYTES, blocks), recycle: (buffer) => blocks.give(buffer),
    facts: { location: factsPath, items: () => fileItems(path, factsPath, 1, Number.MAX_SAFE_INTEGER) },
  };
}

export async function fileRecordsWithFacts(location: string, from: number, to: number): Promise<RecordsWithFacts | null> {
  const log = await fileLogPath(location);
  if (log === null) return null;
  return { name: log, total: null, items: fileItems(log, join(dirname(log), FACTS_FILE_NAME), from, to) };
}

/** Line n of the log is seq n; facts.log is read alongside, matched by seq and hash. */
async function* fileItems(logFile: string, factsFile: string, from: number, to: number): AsyncGenerator<RecordWithFacts> {
  const facts = await factsReader(factsFile);
  let seq = 0;
  for await (const line of createInterface({ input: createReadStream(logFile), crlfDelay: Infinity })) {
    seq++;
    if (seq < from) continue;
    if (seq > to) break;
    // factsHashOf reads a line's first 400 bytes; 400 characters hold at least that many.
    const hash = factsHashOf(Buffer.from(line.slice(0, 400), 'utf8'));
    const found = hash === null ? null : await facts.find(seq, hash, outcomeHashOf(line));
    yield found === null ? { seq, line, facts: null } : { seq, line, facts: found.facts, shared: found.shared };
  }
  facts.close();
}

async function factsReader(path: string) {
  const exists = await stat(path).then((s) => s.isFile(), () => false);
  const lines = exists ? createInterface({ input: createReadStream(path), crlfDelay: Infinity })[Symbol.asyncIterator]() : null;
  const waiting = new Map<string, FactsLine>();
  // Shared documents by page and hash: the log writes each in every page that names it (SHARED_FACTS_PAGE).
  const documents = new Map<string, FactsLine>();
  let highest = 0;
  let page = 0;
  return {
    /** `outcome`: the outcome document a format 3 record names, kept like a shared one in its page. */
    async find(seq: number, hash: string, outcome: string | null): Promise<{ facts: FactsLine; shared: Map<string, string> } | null> {
      for (const [key, line] of waiting) if (line.seq < seq) waiting.delete(key);
      if (pageOf(seq) !== page) {
        page = pageOf(seq);
        for (const [key, line] of documents) if (pageOf(line.seq) < page) documents.delete(key);
      }
      const key = `${seq} ${hash}`;
      // Own facts are kept once a page too (shared-facts-writes.ts): a copy an earlier record of the page wrote is theirs.
      const copy = () => documents.get(`${page} ${hash}`);
      const outcomeUnread = () => outcome !== null && documents.get(`${page} ${outcome}`) === undefined;
      while (((!waiting.has(key) && copy() === undefined) || outcomeUnread()) && lines !== null && highest <= seq + LOOKAHEAD) {
        const next = await lines.next();
        if (next.done) break;
        const line = parseFactsLine(next.value);
        if (line === null || pageOf(line.seq) < page) continue;
        documents.set(`${pageOf(line.seq)} ${line.hash}`, line);
        if (line.seq < seq) continue;
        highest = Math.max(highest, line.seq);
        waiting.set(`${line.seq} ${line.hash}`, line);
      }
      const copied = copy();
      const found = waiting.get(key) ?? (copied === undefined ? null : { ...copied, seq });
      waiting.delete(key);
      if (found === null) return null;
      const shared = namedDocuments(found.text, (used) => documents.get(`${page} ${used}`)?.text);
      const outcomeLine = outcome === null ? undefined : documents.get(`${page} ${outcome}`);
      if (outcomeLine !== undefined) shared.set(outcomeLine.hash, outcomeLine.text);
      return { facts: found, shared };
    },
    close(): void {
      void lines?.return?.();
    },
  };
}
