// Which of K audit chains holds a wallet's records (ARCHITECTURE.md "Partitioned audit chains"): a pure function anyone can recompute.
import { normalizeWallet } from './record.js';
import { sha256Buffer } from './sha256.js';

/**
 * The first 4 bytes of SHA-256 over the lower-case wallet's UTF-8 bytes, read as a big-endian
 * unsigned integer, modulo `partitions`. Stable across restarts, instances and versions, so every
 * record of a wallet lands in one chain and its `wallet_prev_hash` links stay within it.
 */
export function partitionOf(wallet: string, partitions: number): number {
  if (partitions <= 1) return 0;
  return sha256Buffer(normalizeWallet(wallet)).readUInt32BE(0) % partitions;
}
