// The token-safety corpus as last measured by `npm run bench:safety`: published in the methodology with its date and commit.
export const SAFETY_MEASUREMENT = {
  date: '2026-11-28',
  commit: '646a654',
  tokens: 85,
  /** Rows: labelled safe, warn, danger; columns: judged safe, warn, danger. */
  matrix: [
    [28, 0, 0],
    [0, 27, 0],
    [0, 0, 30],
  ],
  dangerPrecision: '1.000 (30/30)',
  dangerRecall: '1.000 (30/30)',
  coldMs: { p50: 1110.1, p99: 2257.7 },
  warmMs: { p50: 7.6, p99: 164.7 },
  roundTripsPerColdCheck: { max: 2, mean: '2.00' },
  /** What else ran: latency is only comparable with a run under the same load. */
  conditions: 'a shared 2-core machine at a load average of about 19; the commit before the intra-day holds (de41d5a), measured right after under the same load, gave cold p50 393.7 ms, p99 1,166.4 ms (idle, on 2026-11-26: 32.1 ms and 73.8 ms)',
} as const;
