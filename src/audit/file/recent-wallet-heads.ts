// The newest record (seq and hash) of the wallets the file log sealed most recently: a group commit links each record to its
// wallet's head, and a fleet's wallets come back again and again (ARCHITECTURE.md "File audit index").
import { EvictionCursor } from '../../store/eviction-cursor.js';
import type { Head } from './log-index.js';

/**
 * Wallets kept: a fleet of this many needs no index read to seal. About 230 bytes a wallet (its text, its seq and a
 * 64-hex hash), some 7.5 MB when full.
 */
export const RECENT_WALLET_HEADS = 32_768;

/**
 * Filled only with records the log acknowledged, by the one process that writes the log (the DATA_DIR lock), so an
 * entry is always the wallet's head in the index; a wallet not kept is read from the index. A hit spares the range
 * read and the hashed key an index read costs (about 4-8 us a verdict on this machine).
 */
export class RecentWalletHeads {
  private readonly heads = new Map<string, Head>();
  private readonly oldest = new EvictionCursor(this.heads);

  constructor(private readonly cap = RECENT_WALLET_HEADS) {}

  /** The wallet's newest record, if kept. */
  get(wallet: string): Head | undefined {
    return this.heads.get(wallet);
  }

  /** A record of the wallet was acknowledged: it is now the wallet's head. */
  acknowledged(wallet: string, seq: number, hash: string): void {
    if (!this.heads.has(wallet) && this.heads.size >= this.cap) this.oldest.evictOldest();
    this.heads.set(wallet, [seq, hash]);
  }
}
