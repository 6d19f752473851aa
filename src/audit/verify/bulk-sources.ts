// Where a bulk verification reads a whole chain: a running service, a JSON-lines export of records, or a backend's own store.
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import canonicalize from 'canonicalize';
import type { AuditHead, RecordWithFacts } from '../record/audit-log.js';
import { lineChunks } from './chunk-sources.js';
import type { Chunk } from './verify-pool.js';

export interface ChainSource {
  /** What is being verified, for the report. */
  name: string;
  /** Units of `total` for progress: a file's bytes or a service's records. */
  unit: 'bytes' | 'records';
  total: number;
  /** The head the chain must end at, when the source knows one. */
  head?: AuditHead;
  chunks: AsyncIterable<Chunk>;
  /** Takes back a walked chunk's buffer for reuse (file sources). */
  recycle?: (buffer: ArrayBuffer) => void;
  /**
   * The facts kept beside the chain, read alongside it, where the source can read them (a backend's own files): each
   * record's must hash to its facts_hash (facts-check.ts). `location` is where they are kept, as problems name it.
   */
  facts?: { location: string; items(): AsyncIterable<RecordWithFacts> };
  /** A service whose log is partitioned: the chain read, and how many it keeps (ARCHITECTURE.md "Partitioned audit chains"). */
  chain?: number;
  chains?: number;
}

const RECORDS_PER_CHUNK = 4096;

/** What reads a chain from where a backend keeps it (src/audit/proof/audit-backend.ts); null when the location is not its own. */
export interface ChainReader {
  chainSource(location: string): Promise<ChainSource | null>;
}

/**
 * An http(s) base URL, a JSON-lines export of records, or a location one of the backends reads
 * (the file log's data directory, its audit/ folder or audit.log).
 */
export async function openChainSource(location: string, backends: readonly ChainReader[], pageSize = 10_000): Promise<ChainSource> {
  if (/^https?:\/\//.test(location)) return serviceSource(location, pageSize);
  const info = await stat(location);
  if (info.isFile() && (await startsWithBrace(location))) return { name: location, unit: 'bytes', total: info.size, chunks: recordChunks(location) };
  for (const backend of backends) {
    const source = await backend.chainSource(location);
    if (source !== null) return source;
  }
  throw new Error(`${location} holds no audit log: neither audit/audit.log nor audit.log`);
}

/**
 * Every chain at `location`: one, or for a service whose log is partitioned each of its chains in turn
 * (the export's first page says how many, `x-audit-chains`), so a whole-log verification covers them all.
 */
export async function openChainSources(location: string, backends: readonly ChainReader[], pageSize = 10_000): Promise<ChainSource[]> {
  const first = await openChainSource(location, backends, pageSize);
  if ((first.chains ?? 1) <= 1) return [first];
  const rest = Array.from({ length: first.chains! - 1 }, (_, i) => serviceSource(location, pageSize, i + 1));
  return [{ ...first, name: `${location} chain 0`, chain: 0 }, ...(await Promise.all(rest))];
}

/** A stored log starts with a hash; a JSON-lines export of records starts with `{`. */
async function startsWithBrace(path: string): Promise<boolean> {
  const fh = await open(path, 'r');
  try {
    const { buffer, bytesRead } = await fh.read(Buffer.alloc(64), 0, 64, 0);
    const text = buffer.toString('latin1', 0, bytesRead).trimStart();
    return text.startsWith('{');
  } finally {
    await fh.close();
  }
}

/**
 * Records as the listing API returns them (the stored JSON plus `hash`), one per
 * line, oldest first. Each becomes `<hash> <RFC 8785 canonical JSON without hash>`,
 * which is the stored line whenever the record is intact. A line that is not a JSON
 * object goes through as it is and is reported unparseable.
 */
async function* recordChunks(path: string): AsyncGenerator<Chunk> {
  let batch: Buffer[] = [];
  for await (const text of createInterface({ input: createReadStream(path), crlfDelay: Infinity })) {
    batch.push(storedLineOf(text));
    if (batch.length === RECORDS_PER_CHUNK) {
      yield* lineChunks(batch, RECORDS_PER_CHUNK);
      batch = [];
    }
  }
  yield* lineChunks(batch, RECORDS_PER_CHUNK);
}

export function storedLineOf(text: string): Buffer {
  try {
    // `chain` (a partitioned log's listing) is beside `hash`, outside the hashed bytes, as `hash` is.
    const { hash, chain: _chain, ...body } = JSON.parse(text) as Record<string, unknown>;
    const canonical = typeof hash === 'string' ? canonicalize(body) : undefined;
    if (canonical !== undefined) return Buffer.from(`${hash} ${canonical}`, 'utf8');
  } catch {
    // Falls through: verification reports the line as it is.
  }
  return Buffer.from(text, 'utf8');
}

/** Pages through GET /api/v1/audit/export (of chain `chain` on a partitioned log) up to the head the first page names. */
async function serviceSource(base: string, pageSize: number, chain?: number): Promise<ChainSource> {
  const first = await fetchPage(base, 1, pageSize, chain);
  const head = { seq: Number(first.headers.get('x-audit-head-seq')), hash: first.headers.get('x-audit-head-hash') ?? '' };
  if (!Number.isSafeInteger(head.seq)) throw new Error(`${base} did not answer with an audit head; is it this service?`);
  async function* pages(): AsyncGenerator<Chunk> {
    let page = first;
    for (;;) {
      const buffer = await page.arrayBuffer();
      if (buffer.byteLength > 0) yield { buffer, length: buffer.byteLength };
      const next = Number(page.headers.get('x-audit-next-seq'));
      if (!(next <= head.seq)) return;
      page = await fetchPage(base, next, Math.min(pageSize, head.seq - next + 1), chain);
    }
  }
  const chains = Number(first.headers.get('x-audit-chains') ?? 1);
  const named = chain === undefined ? {} : { name: `${base} chain ${chain}`, chain };
  return { name: base, unit: 'records', total: head.seq, head, chunks: pages(), ...(chains > 1 ? { chains } : {}), ...named };
}

/** One page of the export; `chain` only for a partitioned log. */
function fetchPage(base: string, from: number, limit: number, chain?: number): Promise<Response> {
  const which = chain === undefined ? '' : `&chain=${chain}`;
  return fetchAuditPage(new URL(`/api/v1/audit/export?from_seq=${from}&limit=${limit}${which}`, base));
}

/**
 * How a reader of the audit exports meets the service's per-IP window for audit reads, which must
 * slow a long run, not end it: up to RATE_LIMITED_TRIES - 1 answers of 429 in a row are waited out,
 * each for the seconds its Retry-After names (1 when it names none).
 */
export const RATE_LIMITED_TRIES = 20;

export function retryAfterMs(header: string | null | undefined): number {
  const seconds = Number(header ?? 1);
  return 1000 * (Number.isFinite(seconds) && seconds >= 0 ? seconds : 1);
}

/** GET one page of an audit export (records or facts), waiting out 429s as above. */
export async function fetchAuditPage(url: URL): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    const response = await fetch(url);
    if (response.status === 200) return response;
    const detail = await response.text();
    if (response.status !== 429 || attempt === RATE_LIMITED_TRIES) throw new Error(`GET ${url.pathname} answered ${response.status}: ${detail.slice(0, 300)}`);
    await sleep(retryAfterMs(response.headers.get('retry-after')));
  }
}
