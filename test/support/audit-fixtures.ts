// Audit test fixtures: sample entries and an independent chain checker using node:crypto.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { AuditEntry } from '../../src/audit/record/audit-log.js';

export const ZEROS = '0'.repeat(64);
export const WALLET_A = '0xAaAa000000000000000000000000000000000001';
export const WALLET_B = '0xbbbb000000000000000000000000000000000002';
export const WALLET_C = '0xCCCC000000000000000000000000000000000003';

/** A plausible entry; `n` varies the request so every record differs. */
export function sampleEntry(wallet: string, n: number): AuditEntry {
  return {
    wallet,
    channel: 'rest',
    request: { wallet, symbol: 'TSLA', side: n % 2 === 0 ? 'buy' : 'sell', amount_usd: 100 + n },
    decision: n % 3 === 0 ? 'deny' : 'allow',
    risk_score: n % 101,
    reasons: n % 3 === 0 ? ['NOTIONAL_OVER_TIER_LIMIT: test'] : [],
    tier: 1 + (n % 3),
    price_usd: 251.37,
    price_source: 'chainlink',
  };
}

/** An entry with facts of its own, `n` in them and in the request, for wallet `n + 1`: written as format 3. */
export function factsEntry(n: number): AuditEntry {
  const text = JSON.stringify({ format: 3, n });
  const facts = { text, hash: createHash('sha256').update(text).digest('hex'), shared: [] };
  return {
    wallet: `0x${(n + 1).toString(16).padStart(40, '0')}`, channel: 'rest', request: { amount: n }, decision: 'allow',
    risk_score: 1, reasons: [], tier: 1, price_usd: 1, price_source: 'oracle', facts,
  };
}

/** Independent of src/: SHA-256 from node:crypto over the bytes after `<hash> `. */
export function nodeSha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Checks stored lines as a third party would: each line is `<hash> <json>`, the
 * hash is SHA-256 of the JSON bytes, seq runs 1..n, prev_hash links the global
 * chain and wallet_prev_hash each wallet's own chain. Returns the parsed records.
 */
export function checkChain(lines: Buffer[]): Array<Record<string, unknown>> {
  const walletHeads = new Map<string, string>();
  let prev = ZEROS;
  return lines.map((line, i) => {
    assert.equal(line.toString('latin1', 64, 65), ' ', `line ${i + 1} separator`);
    const hash = line.toString('latin1', 0, 64);
    assert.equal(nodeSha256(line.subarray(65)), hash, `line ${i + 1} hash`);
    const record = JSON.parse(line.toString('utf8', 65)) as Record<string, unknown>;
    assert.equal(record.seq, i + 1, `line ${i + 1} seq`);
    assert.equal(record.prev_hash, prev, `line ${i + 1} prev_hash`);
    const wallet = record.wallet as string;
    assert.equal(wallet, wallet.toLowerCase(), `line ${i + 1} wallet case`);
    assert.equal(record.wallet_prev_hash, walletHeads.get(wallet) ?? ZEROS, `line ${i + 1} wallet_prev_hash`);
    walletHeads.set(wallet, hash);
    prev = hash;
    return record;
  });
}
