// Writes test/golden/audit-records.json: a fixed sealed audit chain any third party can re-hash.
// Run after a build: node dist/test/golden/generate-audit-records.js [output path]
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ZERO_HASH, type AuditEntry } from '../../src/audit/record/audit-log.js';
import { LINE_BODY_OFFSET, sealRecord } from '../../src/audit/record/record.js';
import { sha256Hex } from '../../src/audit/record/sha256.js';

const TS0 = Date.UTC(2026, 0, 5, 14, 30, 0);

/** Cases chosen to exercise RFC 8785: key order by UTF-16 units, ECMAScript numbers, escapes. */
export const GOLDEN_ENTRIES: AuditEntry[] = [
  {
    wallet: '0xAbCdEf0000000000000000000000000000000001', channel: 'rest',
    request: { wallet: '0xAbCdEf0000000000000000000000000000000001', symbol: 'TSLA', side: 'buy', amount_usd: 250 },
    decision: 'allow', risk_score: 12, reasons: [], tier: 1, price_usd: 251.37, price_source: 'chainlink',
  },
  {
    wallet: '0x00000000000000000000000000000000000000b2', channel: 'mcp',
    request: { z: 1, 'é': 2, a: { b: [1, 2, { '€': null }] }, '😀': true, '｡': 'halfwidth', '\u0080': 'c1', '10': 'ten', '9': 'nine' },
    decision: 'deny', risk_score: 95,
    reasons: ['NOTIONAL_OVER_TIER_LIMIT: 7,200 USD exceeds the Tier 1 ceiling of 5,000 USD', 'ADVISORY: line\nbreak "quoted" \\ tab\t é €'],
    tier: 1, price_usd: 0.1, price_source: 'chainlink',
  },
  {
    wallet: '0xABCDEF0000000000000000000000000000000001', channel: 'x402',
    request: { big: 1e21, just_below: 1e20 * 9.99, tiny: 1e-7, small: 0.000001, sum: 0.1 + 0.2, min: 5e-324, max: 1.7976931348623157e308, neg: -1.5, int: 9007199254740991 },
    decision: 'warn', risk_score: 55.5, reasons: ['PRICE_STALE: feed older than 3,600 s'], tier: 3, price_usd: 1e21, price_source: 'chainlink-stale',
  },
  {
    wallet: '0x00000000000000000000000000000000000000c3', channel: 'free',
    request: { empty_object: {}, empty_array: [], control: '\u0001\u001f', separators: '\u2028\u2029', slash: '/', nested: [[[]]] },
    decision: 'allow', risk_score: 0, reasons: [], tier: 0, price_usd: 0, price_source: 'none',
  },
  {
    wallet: '0x00000000000000000000000000000000000000B2', channel: 'demo',
    request: { symbol: 'NVDA', side: 'sell', amount_usd: 10 },
    decision: 'error', risk_score: 100, reasons: ['PRICE_UNAVAILABLE: no price'], tier: 2, price_usd: 0, price_source: 'none',
  },
];

export interface GoldenRecord {
  entry: AuditEntry;
  seq: number;
  ts: number;
  prev_hash: string;
  wallet_prev_hash: string;
  /** The RFC 8785 canonical JSON; its UTF-8 bytes are what `hash` covers. */
  canonical: string;
  hash: string;
}

/** Seals GOLDEN_ENTRIES into one chain. */
export function goldenChain(): GoldenRecord[] {
  const walletHeads = new Map<string, string>();
  let prev = ZERO_HASH;
  return GOLDEN_ENTRIES.map((entry, i) => {
    const wallet = entry.wallet.toLowerCase();
    const walletPrev = walletHeads.get(wallet) ?? ZERO_HASH;
    const { record, line } = sealRecord(entry, i + 1, TS0 + i * 1000, prev, walletPrev, sha256Hex);
    walletHeads.set(wallet, record.hash);
    prev = record.hash;
    const canonical = line.toString('utf8', LINE_BODY_OFFSET, line.length - 1);
    return { entry, seq: i + 1, ts: TS0 + i * 1000, prev_hash: record.prev_hash, wallet_prev_hash: walletPrev, canonical, hash: record.hash };
  });
}

async function main(): Promise<void> {
  const out = process.argv[2] ?? join(process.cwd(), 'test', 'golden', 'audit-records.json');
  const document = {
    about: 'Golden audit chain. hash = lower-case hex SHA-256 of the UTF-8 bytes of canonical (RFC 8785 JSON of the record without hash); the stored line is hash, one space, canonical, newline. Wallets are stored lower-case.',
    records: goldenChain(),
  };
  writeFileSync(out, `${JSON.stringify(document, null, 2)}\n`);
  console.log(`wrote ${document.records.length} golden audit records to ${out}`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
