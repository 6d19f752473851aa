// What `npm start` tells a person about the chain it runs on: on the embedded devnet, its wallets and keys;
// on RPC_URL, the node (its origin only: providers put keys in the path) and whether it answered at start.
import { devnetSummary } from '../tools/devnet/summary.js';
import type { ChainContext } from './attach-chain.js';

export function chainNotes(chain: ChainContext, nowMs: number): string[] {
  if (chain.devnet) return devnetSummary(chain.devnet);
  if (!chain.reads || !chain.rpcUrl) return [];
  const node = new URL(chain.rpcUrl).origin;
  const head = chain.reads.head.status(nowMs);
  return head.live
    ? [`  chain: node ${node}, block ${head.number}, new heads ${head.watch === 'stream' ? 'streamed' : 'polled'}`]
    : [`  chain: node ${node}: ${head.reason}; evaluations fail closed until it answers`];
}
