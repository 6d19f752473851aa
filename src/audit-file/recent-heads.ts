// The newest record of recently sealed wallets, bounded: most commits need not ask the index thread.
import type { Head } from './audit-index.js';

/** Default capacity: about 250 bytes each, so about 1 MB. */
export const RECENT_HEADS = 4096;

/**
 * Two generations instead of a strict LRU: a write is one map operation on the
 * append path, and when the young generation fills, the old one is dropped. Every
 * append refreshes its wallet, so an entry is never stale: the log is the only
 * writer of wallet heads.
 */
export class RecentHeads {
  private young = new Map<string, Head>();
  private old = new Map<string, Head>();

  constructor(private readonly capacity = RECENT_HEADS) {}

  get(wallet: string): Head | undefined {
    return this.young.get(wallet) ?? this.old.get(wallet);
  }

  /** Each wallet's head: the recent ones from memory, the others with one question (`ask`) for all of them. */
  async resolve(wallets: string[], ask: (wallets: string[]) => Promise<Array<Head | null>>): Promise<Map<string, Head>> {
    const heads = new Map<string, Head>();
    const missing = new Set<string>();
    for (const wallet of wallets) {
      const head = this.get(wallet);
      if (head !== undefined) heads.set(wallet, head);
      else missing.add(wallet);
    }
    if (missing.size === 0) return heads;
    const asked = [...missing];
    const found = await ask(asked);
    for (const [i, wallet] of asked.entries()) if (found[i] !== null) heads.set(wallet, found[i] as Head);
    return heads;
  }

  set(wallet: string, head: Head): void {
    this.young.set(wallet, head);
    if (this.young.size < this.capacity / 2) return;
    this.old = this.young;
    this.young = new Map();
  }
}
