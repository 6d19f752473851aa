// The HTTP client under viem's transport for chain reads: node:http on kept-alive sockets, in place of the global fetch.
import * as http from 'node:http';
import * as https from 'node:https';

/** What viem's HTTP transport reads of a response (viem/_esm/utils/rpc/http.js, utils/internal/http.js). */
export interface RpcResponse {
  ok: boolean;
  status: number;
  statusText: string;
  headers: { get(name: string): string | null };
  /** Always null: the body is read whole (up to the cap), and viem takes it through text(). */
  body: null;
  text(): Promise<string>;
}

/** What viem hands its fetch function: a plain object of headers, the JSON-RPC text, its timeout's signal. */
export interface RpcRequestInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal | null;
  /**
   * A deadline without a signal: past it the request is abandoned (its socket destroyed) and rejects with
   * RpcTimeoutError. The read batcher's calls take this (eth-caller.ts); viem passes its timeout as `signal`.
   */
  timeoutMs?: number;
}

/** A request that passed its `timeoutMs` without a whole answer. */
export class RpcTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
    this.name = 'RpcTimeoutError';
  }
}

export type RpcFetch = (url: string, init: RpcRequestInit) => Promise<RpcResponse>;

/** viem's own cap on an answer (defaultMaxResponseBodySize): past it the read is abandoned, not buffered. */
export const MAX_ANSWER_BYTES = 10_485_760;
/**
 * An idle socket is closed after this long, before a node's own keep-alive timeout can close
 * it under a request just sent on it (undici's default keep-alive is the same 4 s).
 */
const IDLE_SOCKET_MS = 4_000;

/**
 * A fetch for viem's `fetchFn` (ARCHITECTURE.md "Chain facts by block"). The global fetch
 * (undici, with WHATWG streams, Headers and Response objects) cost the event loop about 360 us
 * of CPU per eth_call against a local anvil; this about 140 us (both measured in one process,
 * eight calls at a time, medians of the last rounds). viem keeps its timeout, its errors and its
 * JSON-RPC handling: a failed connection, a cut answer or an abort rejects, as fetch would.
 */
export function keepAliveFetch(maxAnswerBytes = MAX_ANSWER_BYTES): RpcFetch {
  const agents = {
    'http:': new http.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
    'https:': new https.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
  };
  const targets = new Map<string, URL>();
  return (url, init) => new Promise<RpcResponse>((resolved, rejected) => {
    let deadline: NodeJS.Timeout | undefined;
    const resolve = (answer: RpcResponse) => {
      clearTimeout(deadline);
      resolved(answer);
    };
    const reject = (error: Error) => {
      clearTimeout(deadline);
      rejected(error);
    };
    let target = targets.get(url);
    if (target === undefined) targets.set(url, (target = new URL(url)));
    const secure = target.protocol === 'https:';
    if (!secure && target.protocol !== 'http:') return reject(new Error(`chain reads go over http or https, not ${target.protocol}`));
    const options = { method: init.method ?? 'POST', headers: init.headers, agent: secure ? agents['https:'] : agents['http:'], signal: init.signal ?? undefined };
    const request = (secure ? https : http).request(target, options, (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxAnswerBytes) {
          reject(new Error(`the chain node's answer is over ${maxAnswerBytes} bytes`));
          // Dropped with its socket: the rest of the answer would still arrive on it.
          response.destroy();
          return;
        }
        chunks.push(chunk);
      });
      response.on('error', reject);
      response.on('end', () => {
        // Once over the limit the promise is settled already; a response cut short errors instead of ending.
        const text = (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString('utf8');
        const status = response.statusCode ?? 0;
        resolve({
          ok: status >= 200 && status < 300,
          status,
          statusText: response.statusMessage ?? '',
          headers: { get: (name) => headerText(response.headers[name.toLowerCase()]) },
          body: null,
          text: () => Promise.resolve(text),
        });
      });
    });
    request.on('error', reject);
    if (init.timeoutMs !== undefined) {
      const timeoutMs = init.timeoutMs;
      deadline = setTimeout(() => {
        // Settled first: whatever the destroyed socket then reports (a hang-up, a cut answer) comes after.
        rejected(new RpcTimeoutError(timeoutMs));
        request.destroy();
      }, timeoutMs);
    }
    request.end(init.body);
  });
}

function headerText(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}
