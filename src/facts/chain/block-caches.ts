// Caches whose entries live by the chain, not by a clock: per block (prices) or until a block touches the wallet (holdings) (ARCHITECTURE.md "Chain facts by block").
import { EvictionCursor } from '../../store/eviction-cursor.js';
import type { ChainHead, Head, Touched } from './chain-head.js';

/** A read at one block, named by number and hash; `settled` once it has answered. */
interface BlockEntry<V> {
  block: bigint;
  hash: string;
  value: Promise<V>;
  settled?: { value: V };
}

/**
 * One value per key per head: a new head makes every entry a miss, and the first caller
 * reads again for everyone (concurrent callers share the read). A failed read is not kept.
 * A head is its number and its hash: after a reorg or a revert, a block at the same height is
 * another block, and what was read at the one that left the chain is not its answer.
 */
export class PerBlockCache<V> {
  private readonly entries = new Map<string, BlockEntry<V>>();

  get(key: string, head: Head, read: (head: Head) => Promise<V>): Promise<V> {
    const entry = this.entries.get(key);
    if (entry && atHead(entry, head)) return entry.value;
    const value = read(head);
    const kept: BlockEntry<V> = { block: head.number, hash: head.hash, value };
    this.entries.set(key, kept);
    value.then(
      (settled) => {
        kept.settled = { value: settled };
      },
      () => {
        if (this.entries.get(key) === kept) this.entries.delete(key);
      },
    );
    return value;
  }

  /** The value read for `key` at `head`, once that read has answered; undefined while it runs or when none was made. */
  peek(key: string, head: Head): { value: V } | undefined {
    const entry = this.entries.get(key);
    return entry !== undefined && atHead(entry, head) ? entry.settled : undefined;
  }
}

function atHead(entry: BlockEntry<unknown>, head: Head): boolean {
  return entry.block === head.number && entry.hash === head.hash;
}

interface Pending<V> {
  value: Promise<V>;
  /** A block applied while the read ran touched the wallet: the value answers its callers but is not kept. */
  superseded: boolean;
}

/** The documented cap: past it the least recently used wallet's facts are dropped (about 200 bytes each). */
export const WALLET_FACTS_CAP = 100_000;

/**
 * A wallet's facts (balances) as of the block they were read at, kept until a later block's
 * Transfer logs touch the wallet (or the service cannot tell, `'all'`). Least recently used
 * wallets go first past `cap`. Concurrent misses of one wallet share one read.
 */
export class WalletFactCache<V> {
  private readonly entries = new Map<string, V>();
  private readonly oldest = new EvictionCursor(this.entries);
  private readonly pending = new Map<string, Pending<V>>();
  private latest = -1n;

  constructor(head: ChainHead, private readonly cap = WALLET_FACTS_CAP) {
    head.onHead((applied, touched) => {
      this.latest = applied.number;
      this.forget(touched);
    });
  }

  get size(): number {
    return this.entries.size;
  }

  /** The wallet's facts when they are kept (`wallet` lowercase), as `get` would answer them at once; marks them used. */
  peek(wallet: string): V | undefined {
    const cached = this.entries.get(wallet);
    if (cached !== undefined) {
      // Most recently used last: Map keeps insertion order, so eviction takes the first key.
      this.entries.delete(wallet);
      this.entries.set(wallet, cached);
    }
    return cached;
  }

  /** `wallet` lowercase. */
  get(wallet: string, head: Head, read: (head: Head) => Promise<V>): Promise<V> {
    const cached = this.peek(wallet);
    if (cached !== undefined) return Promise.resolve(cached);
    // A caller holding an older head than the one applied reads at its own head, shares nothing and keeps nothing.
    if (head.number < this.latest) return read(head);
    const running = this.pending.get(wallet);
    if (running) return running.value;
    const pending: Pending<V> = { value: read(head), superseded: false };
    this.pending.set(wallet, pending);
    pending.value.then(
      (value) => {
        this.pending.delete(wallet);
        if (!pending.superseded) this.remember(wallet, value);
      },
      () => this.pending.delete(wallet),
    );
    return pending.value;
  }

  private remember(wallet: string, value: V): void {
    if (this.entries.size >= this.cap) this.oldest.evictOldest();
    this.entries.set(wallet, value);
  }

  private forget(touched: Touched): void {
    if (touched === 'all') {
      this.entries.clear();
      for (const pending of this.pending.values()) pending.superseded = true;
      return;
    }
    for (const wallet of touched) {
      this.entries.delete(wallet);
      const pending = this.pending.get(wallet);
      if (pending) pending.superseded = true;
    }
  }
}
