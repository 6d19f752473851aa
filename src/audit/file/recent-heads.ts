// The newest record of recently sealed wallets, bounded: most commits need not ask the index thread.
import { walletKey, type Head } from './audit-index.js';
import type { WalletFilter } from './wallet-filter.js';

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

/**
 * Heads of wallets not sealed recently: only those the filter may hold are asked of
 * the index thread (one round trip, none when all are new); the others certainly
 * have no records. `keys` gets each wallet's table key, for the caller to add the
 * new ones to the filter once their first records are written.
 */
export async function askUnlessNew(
  filter: WalletFilter, wallets: string[], keys: Map<string, Buffer>, ask: (wallets: string[]) => Promise<Array<Head | null>>,
): Promise<Array<Head | null>> {
  const maybe: string[] = [];
  for (const wallet of wallets) {
    const key = walletKey(wallet);
    keys.set(wallet, key);
    if (filter.mightHold(key)) maybe.push(wallet);
  }
  if (maybe.length === 0) return wallets.map(() => null);
  const answers = await ask(maybe);
  const found = new Map(maybe.map((wallet, i) => [wallet, answers[i]]));
  return wallets.map((wallet) => found.get(wallet) ?? null);
}
