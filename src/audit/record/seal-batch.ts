// Seals a group of entries against a head and wallet heads, for both stores.
import { ZERO_HASH, type AuditEntry, type AuditHead, type AuditRecord } from './audit-log.js';
import { checkLink, normalizeWallet, sealOnCheckedLinks, type SealedRecord } from './record.js';
import type { Sha256Hex } from './sha256.js';

export interface SealedBatch {
  /** One per entry, in order: the record, or the Error that rejects just that entry. */
  outcome: Array<AuditRecord | Error>;
  /** The records that will be written, in seq order. */
  sealed: SealedRecord[];
  /** The global head the batch was sealed on. */
  base: AuditHead;
  /** The head after the batch. */
  head: AuditHead;
  /** Each wallet's head as the batch assumed it (its first record's wallet_prev_hash). */
  assumedWalletHeads: Map<string, string>;
  /** Each wallet's head after the batch. */
  walletHeads: Map<string, string>;
}

/**
 * Seals entries in order on top of `base`. An entry that cannot be sealed (for
 * example a NaN score, which RFC 8785 cannot express) is rejected alone and takes
 * no seq, so the chain stays gap-free.
 */
export function sealBatch(
  entries: AuditEntry[],
  base: AuditHead,
  walletHead: (wallet: string) => string | undefined,
  sha256hex: Sha256Hex,
  ts: number,
): SealedBatch {
  const batch: SealedBatch = {
    outcome: [], sealed: [], base, head: base, assumedWalletHeads: new Map(), walletHeads: new Map(),
  };
  // The heads read from the store are checked as they are read; every later link is a hash sealed here.
  try {
    checkLink(base.hash);
  } catch (error) {
    batch.outcome = entries.map(() => error as Error);
    return batch;
  }
  for (const entry of entries) {
    try {
      batch.outcome.push(sealOne(batch, entry, walletHead, sha256hex, ts));
    } catch (error) {
      batch.outcome.push(error instanceof Error ? error : new Error(String(error)));
    }
  }
  return batch;
}

function sealOne(
  batch: SealedBatch, entry: AuditEntry, walletHead: (wallet: string) => string | undefined, sha256hex: Sha256Hex, ts: number,
): AuditRecord {
  const wallet = normalizeWallet(String(entry.wallet));
  let walletPrev = batch.walletHeads.get(wallet);
  if (walletPrev === undefined) {
    walletPrev = walletHead(wallet) ?? ZERO_HASH;
    // Not kept when it cannot link: each entry of the wallet is refused alike.
    checkLink(walletPrev);
    batch.assumedWalletHeads.set(wallet, walletPrev);
  }
  const sealed = sealOnCheckedLinks(entry, batch.head.seq + 1, entry.ts ?? ts, batch.head.hash, walletPrev, sha256hex);
  batch.sealed.push(sealed);
  batch.head = { seq: sealed.record.seq, hash: sealed.record.hash };
  batch.walletHeads.set(wallet, sealed.record.hash);
  return sealed.record;
}
