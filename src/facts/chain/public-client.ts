// The viem public client every chain read goes through, devnet or real node alike.
import { createPublicClient, defineChain, http, type PublicClient } from 'viem';
import { ethCaller, type EthCaller } from './eth-caller.js';
import { keepAliveFetch, type RpcFetch } from './rpc-fetch.js';

/** Robinhood Chain as the service sees it; the RPC address comes from configuration. */
export function robinhoodChain(rpcUrl: string) {
  return defineChain({
    id: 4663,
    name: 'Robinhood Chain',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

/**
 * Reads fail fast (RPC_TIMEOUT_MS, 2 s by default; no retries) so an evaluation that depends on a dead node
 * answers with an error within a bounded time instead of hanging (fail closed).
 * `refuse` (the embedded devnet's supervisor) names a reason while the node must not be
 * read, e.g. while it is being redeployed: reads then fail at once, as on a dead node.
 * `batch` sends the requests made in the same tick as one JSON-RPC batch (one round trip).
 * Requests go through `send`, a keepAliveFetch (rpc-fetch.ts), not the global fetch.
 */
export function createChainClient(
  rpcUrl: string, timeoutMs = 2_000, refuse?: () => string | null, batch = false, send: RpcFetch = keepAliveFetch(),
): PublicClient {
  return createPublicClient({
    chain: robinhoodChain(rpcUrl),
    // keepAliveFetch holds an answer to viem's own 10 MiB cap as it reads; with viem's check too, viem would encode each answer again to measure it.
    transport: http(rpcUrl, { timeout: timeoutMs, retryCount: 0, batch, fetchFn: gatedFetch(send, refuse) as unknown as typeof fetch, maxResponseBodySize: false }),
  }) as PublicClient;
}

/** The service's two clients of one node, plain and batching, and the read batcher's eth_call, on one pool of kept-alive sockets. */
export function chainClients(rpcUrl: string, timeoutMs: number, refuse?: () => string | null): { client: PublicClient; batchClient: PublicClient; calls: EthCaller } {
  const send = keepAliveFetch();
  return {
    client: createChainClient(rpcUrl, timeoutMs, refuse, false, send),
    batchClient: createChainClient(rpcUrl, timeoutMs, refuse, true, send),
    calls: ethCaller(rpcUrl, gatedFetch(send, refuse), timeoutMs),
  };
}

function gatedFetch(send: RpcFetch, refuse?: () => string | null): RpcFetch {
  if (refuse === undefined) return send;
  return (url, init) => {
    const reason = refuse();
    return reason === null ? send(url, init) : Promise.reject(new Error(reason));
  };
}
