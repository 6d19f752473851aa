// A fixed-size Bloom filter of every wallet the log holds, so a commit knows a new wallet without asking the index thread.
//
// It never forgets a wallet it was given, so "not held" is certain: such a wallet has
// no records and its head is none. "Maybe held" is only a reason to ask the index
// thread, which has the truth; a filter that fills up (many more wallets than its
// bits allow) just answers "maybe" more often and costs speed, never correctness.
// Its positions come from the table key (bytes of SHA-256 of the wallet), which a
// caller cannot aim, and which the index thread can read back from wallets.idx to
// fill a filter at open without the wallet strings.
import { KEY_BYTES } from './wallet-pages.js';

/** Default size: 4 MiB, 2^25 bits; with 4 probes about 1 false "maybe" in 5,000 at 1M wallets, 1 in 40 at 4M. */
export const FILTER_BYTES = 4 * 1024 * 1024;
/** Probes per wallet: the best count near 8 bits a wallet, the load the default size reaches at 4M wallets. */
const PROBES = 4;

export class WalletFilter {
  private readonly mask: number;

  /** `bits` must hold a power of two bytes, at least 8; it is used as is (the index thread's transferred buffer). */
  constructor(readonly bits: Uint8Array) {
    const size = bits.length;
    if (size < 8 || (size & (size - 1)) !== 0) throw new Error(`wallet filter: ${size} bytes is not a power of two of at least 8`);
    this.mask = size * 8 - 1;
  }

  /** An empty filter of `bytes` bytes (rounded down to a power of two). */
  static empty(bytes = FILTER_BYTES): WalletFilter {
    return new WalletFilter(new Uint8Array(2 ** Math.floor(Math.log2(Math.max(8, bytes)))));
  }

  /** Adds a table key (or the key in a table slot at `at`). */
  add(key: Uint8Array, at = 0): void {
    let [bit, step] = probes(key, at);
    for (let i = 0; i < PROBES; i++, bit = (bit + step) >>> 0) {
      const b = bit & this.mask;
      this.bits[b >>> 3] |= 1 << (b & 7);
    }
  }

  /** False only for a key never added. */
  mightHold(key: Uint8Array): boolean {
    let [bit, step] = probes(key, 0);
    for (let i = 0; i < PROBES; i++, bit = (bit + step) >>> 0) {
      const b = bit & this.mask;
      if ((this.bits[b >>> 3] & (1 << (b & 7))) === 0) return false;
    }
    return true;
  }
}

/**
 * Double hashing over the key's last 8 bytes (the table addresses buckets with its
 * first 6): probe i is h1 + i * h2, h2 odd so the probes differ in a power-of-two space.
 */
function probes(key: Uint8Array, at: number): [number, number] {
  const word = (i: number) => (key[i] | (key[i + 1] << 8) | (key[i + 2] << 16) | (key[i + 3] << 24)) >>> 0;
  return [word(at + KEY_BYTES - 8), (word(at + KEY_BYTES - 4) | 1) >>> 0];
}
