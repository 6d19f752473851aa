// The read batcher's eth_calls as plain JSON-RPC requests on the kept-alive sockets, without viem's request layers (ARCHITECTURE.md "Chain facts by block").
import { HttpRequestError, RpcRequestError, TimeoutError, type Address, type Hex } from 'viem';
import { RpcTimeoutError, type RpcFetch } from './rpc-fetch.js';

/** What a batched read needs of the node: its eth_call. viem's client is one (tests pass it); ethCaller is the service's. */
export interface EthCaller {
  request(args: { method: 'eth_call'; params: [{ to?: Address; data: Hex }, Hex | 'latest'] }): Promise<Hex>;
}

const HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'content-type': 'application/json' });

/**
 * eth_call through `send` (rpc-fetch.ts, gated like the client's), failing as viem's client fails: the same error
 * classes, naming the node's URL and the request, so the log reads alike whichever sent it (errors.ts). What it leaves
 * out is viem's per-request work: a Headers object for each of three header sets, an AbortController and the
 * listeners of its signal for the timeout (here a deadline in `send`), retry and dedupe wrappers; about a third of
 * the service's CPU a call (ARCHITECTURE.md "Chain facts by block").
 */
export function ethCaller(url: string, send: RpcFetch, timeoutMs: number): EthCaller {
  let id = 0;
  return {
    async request({ method, params }) {
      const body = { method, params };
      const text = JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params });
      let answer: Awaited<ReturnType<RpcFetch>>;
      let data: { result?: unknown; error?: { code: number; message: string; data?: unknown } };
      try {
        answer = await send(url, { method: 'POST', headers: HEADERS, body: text, timeoutMs });
        data = JSON.parse(await answer.text());
      } catch (error) {
        if (error instanceof RpcTimeoutError) throw new TimeoutError({ body, url });
        throw new HttpRequestError({ body, cause: error as Error, url });
      }
      if (typeof data === 'object' && data !== null && typeof data.error === 'object' && data.error !== null) {
        throw new RpcRequestError({ body, error: data.error, url });
      }
      if (!answer.ok) throw new HttpRequestError({ body, details: answer.statusText, status: answer.status, url });
      if (typeof data?.result !== 'string') throw new HttpRequestError({ body, details: 'the answer holds no result', status: answer.status, url });
      return data.result as Hex;
    },
  };
}
