// The chain's part of the status document: offline, or whether the node answers as the right chain.
import type { ChainContext } from './attach-chain.js';

export interface ChainHealth {
  status: 'ok' | 'degraded' | 'down';
  kind: 'devnet' | 'rpc' | 'offline';
  chain_id: number;
  reason?: string;
  [detail: string]: unknown;
}

/** One eth_chainId (never cached by viem, unlike the block number): the cheapest read that proves the node is there. */
export async function chainHealth(chain: ChainContext, nowMs: number): Promise<ChainHealth> {
  const expected = chain.registry.chainId;
  if (!chain.client) return { status: 'ok', kind: 'offline', chain_id: expected };
  const kind = chain.supervisor ? 'devnet' : 'rpc';
  const devnet = chain.supervisor?.health();
  // The head the evaluations read at, and whether the watch still vouches for it (ARCHITECTURE.md "Chain facts by block").
  const head = chain.reads ? { head: chain.reads.head.status(nowMs) } : {};
  const extra = devnet ? { restarts: devnet.restarts, anvil_pid: devnet.pid, ...head } : head;
  if (devnet?.reason) return { status: 'down', kind, chain_id: expected, reason: devnet.reason, phase: devnet.phase, ...extra };
  try {
    const answered = await chain.client.getChainId();
    if (answered !== expected) return { status: 'down', kind, chain_id: expected, reason: `the node answers as chain ${answered}, not ${expected}`, ...extra };
    return { status: 'ok', kind, chain_id: expected, ...extra };
  } catch {
    // The node's URL may carry a credential, so the error itself stays out of the document.
    return { status: 'down', kind, chain_id: expected, reason: 'the node did not answer; evaluations fail closed until it does', ...extra };
  }
}
