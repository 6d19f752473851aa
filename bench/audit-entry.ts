// The audit entry the benchmarks write: the shape /api/v1/analyze/free records (about 770 bytes a line).
import type { AuditEntry } from '../src/audit/record/audit-log.js';

export function benchEntry(wallet: string, n: number): AuditEntry {
  return {
    wallet,
    channel: 'free',
    request: {
      wallet, asset: 'TSLA', contract_address: '0xa6f91334bed73452616829fac9fa646b4b2b76e0',
      side: n % 2 ? 'sell' : 'buy', amount: 1 + (n % 50),
    },
    decision: n % 7 === 0 ? 'warn' : 'allow',
    risk_score: 10 + (n % 30),
    reasons: ['ADVISORY: PRICE_FALLBACK_DEFAULT: priced by the built-in default, no live feed'],
    tier: 1,
    price_usd: 251.37,
    price_source: 'fallback_default',
    // Facts, as every verdict's record names them now (format 3): the chain covers the facts by this hash.
    facts: { hash: 'f'.repeat(56) + n.toString(16).padStart(8, '0').slice(-8), text: '' },
  };
}
