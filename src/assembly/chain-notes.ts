// What `npm start` tells a person about the chain it runs on: on the embedded devnet, its wallets and keys.
import { devnetSummary } from '../devnet/summary.js';
import type { ChainContext } from './attach-chain.js';

export function chainNotes(chain: ChainContext): string[] {
  return chain.devnet ? devnetSummary(chain.devnet) : [];
}
