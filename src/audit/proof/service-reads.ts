// What a verifier reads from the service it checks: JSON documents and the audit export, the export a few pages ahead.
import { Agent, get as httpGet, type ClientRequest, type IncomingMessage } from 'node:http';
import { get as httpsGet } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import { PATHS } from '../../catalogue/published-facts.js';
import { RATE_LIMITED_TRIES, retryAfterMs } from '../verify/bulk-sources.js';

/** Records a page of the export asks for: small enough that the first arrives while the service reads the rest. */
export const PAGE_RECORDS = 1000;
/**
 * Past the first SMALL_PAGES pages a page asks for the export's most (10,000 records): a long run
 * then makes a tenth of the requests, which the service's per-IP window for audit reads counts.
 */
export const LARGE_PAGE_RECORDS = 10_000;
const SMALL_PAGES = 10;
/** Pages asked for before the one being read is done: the service reads the next while this side hashes the last. */
const PAGES_AHEAD = 3;
const RATE_LIMITED = -1;

// node:http rather than fetch: a first request costs a tenth of fetch's (undici loads on first use),
// and it hands over a page of the export in half the time.
const keepAlive = new Agent({ keepAlive: true });

interface PendingGet {
  request: ClientRequest;
  response: Promise<IncomingMessage>;
}

function startGet(base: string, path: string): PendingGet {
  const url = new URL(path, base);
  let request: ClientRequest | undefined;
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    const https = url.protocol === 'https:';
    request = (https ? httpsGet : httpGet)(url, { agent: https ? undefined : keepAlive }, resolve).on('error', reject);
  });
  // A page given up on (a refusal elsewhere, or a short page before it) is destroyed unread: not an unhandled rejection.
  response.catch(() => undefined);
  return { request: request!, response };
}

/** GET `path`: its status and its body as text. */
export async function getText(base: string, path: string): Promise<{ status: number; text: string }> {
  const response = await startGet(base, path).response;
  const chunks: Buffer[] = [];
  for await (const chunk of response as AsyncIterable<Buffer>) chunks.push(chunk);
  return { status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') };
}

interface Page extends PendingGet {
  from: number;
  count: number;
}

/**
 * Stored lines `from` to `to` as they arrive, in runs of whole lines, asked for PAGE_RECORDS at a
 * time with PAGES_AHEAD pages in flight: the pages are asked for at once, so the service reads the
 * next records from its log while the caller checks these. Never more lines than asked for; a page
 * with fewer (the service's head is behind `to`) is followed from where it stopped, and one with
 * none ends the lines, which the caller's count then refuses. Closing it drops the pages in flight.
 */
export class ExportLines implements AsyncIterable<Buffer> {
  private readonly pages: Page[] = [];
  private requested: number;
  private readonly smallUpTo: number;
  private limitedInARow = 0;

  /** `chain`: on a partitioned log, the chain whose lines these are (ARCHITECTURE.md "Partitioned audit chains"). */
  constructor(private readonly base: string, from: number, private readonly to: number, private readonly chain?: number) {
    this.requested = from;
    this.smallUpTo = from + SMALL_PAGES * PAGE_RECORDS;
    this.askAhead();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Buffer> {
    try {
      for (let page = this.pages.shift(); page; page = this.pages.shift()) {
        this.askAhead();
        const lines = yield* this.read(page);
        if (lines === RATE_LIMITED) {
          this.restartAt(page.from);
          continue;
        }
        this.limitedInARow = 0;
        if (lines === 0) return;
        if (lines < page.count) this.restartAt(page.from + lines);
      }
    } finally {
      this.close();
    }
  }

  close(): void {
    for (const page of this.pages.splice(0)) page.request.destroy();
  }

  private askAhead(): void {
    while (this.pages.length < PAGES_AHEAD && this.requested <= this.to) {
      const size = this.requested < this.smallUpTo ? PAGE_RECORDS : LARGE_PAGE_RECORDS;
      const count = Math.min(size, this.to - this.requested + 1);
      this.pages.push({ from: this.requested, count, ...startGet(this.base, `${PATHS.auditExport}?from_seq=${this.requested}&limit=${count}${this.chain === undefined ? '' : `&chain=${this.chain}`}`) });
      this.requested += count;
    }
  }

  private restartAt(seq: number): void {
    this.close();
    this.requested = seq;
    this.askAhead();
  }

  /** One page's lines, in runs of whole lines as the chunks arrive; returns how many, or RATE_LIMITED once its 429 is waited out. */
  private async *read(page: Page): AsyncGenerator<Buffer, number> {
    const response = await page.response;
    if (response.statusCode === 429 && ++this.limitedInARow < RATE_LIMITED_TRIES) {
      response.resume();
      await sleep(retryAfterMs(response.headers['retry-after']));
      return RATE_LIMITED;
    }
    if (response.statusCode !== 200) {
      response.resume();
      throw new Error(`GET ${PATHS.auditExport} answered ${response.statusCode}`);
    }
    let rest: Buffer = Buffer.alloc(0);
    let lines = 0;
    for await (const chunk of response as AsyncIterable<Buffer>) {
      // Read to the end even so, which keeps the socket for the next page.
      if (lines === page.count) continue;
      let at = 0;
      if (rest.length > 0) {
        // Only the line cut by the chunk's edge is copied; whole lines are handed over where they arrived.
        const end = chunk.indexOf(0x0a);
        if (end === -1) {
          rest = Buffer.concat([rest, chunk]);
          continue;
        }
        yield Buffer.concat([rest, chunk.subarray(0, end + 1)]);
        lines++;
        at = end + 1;
        if (lines === page.count) continue;
      }
      const { cut, count } = wholeLines(chunk, at, page.count - lines);
      lines += count;
      if (cut > at) yield chunk.subarray(at, cut);
      rest = chunk.subarray(cut);
    }
    if (lines === page.count) return lines;
    if (rest.length > 0) yield rest;
    return lines + (rest.length > 0 ? 1 : 0);
  }
}

/** Where the whole lines of `bytes` from `from` end (at most `most` of them), and how many there are. */
function wholeLines(bytes: Buffer, from: number, most: number): { cut: number; count: number } {
  let count = 0;
  let cut = from;
  for (let at = bytes.indexOf(0x0a, from); at !== -1 && count < most; at = bytes.indexOf(0x0a, at + 1)) {
    count++;
    cut = at + 1;
  }
  return { cut, count };
}
