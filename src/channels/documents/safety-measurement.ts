// The token-safety corpus as last measured by `npm run bench:safety`: published in the methodology with its date and commit.
export const SAFETY_MEASUREMENT = {
  date: '2026-11-28',
  commit: '0d9e98b',
  tokens: 92,
  /** Rows: labelled safe, warn, danger; columns: judged safe, warn, danger. */
  matrix: [
    [30, 0, 0],
    [0, 31, 0],
    [0, 0, 31],
  ],
  dangerPrecision: '1.000 (31/31)',
  dangerRecall: '1.000 (31/31)',
  coldMs: { p50: 67.4, p99: 171.8 },
  warmMs: { p50: 0.5, p99: 6.0 },
  roundTripsPerColdCheck: { max: 2, mean: '2.00' },
  /** What else ran: latency is only comparable with a run under the same load. */
  conditions: 'a shared 2-core machine at a load average of about 1 to 3, in turns with the commit before (74a447b), which over three runs gave cold p50 61.5 to 89.5 ms and p99 134.5 to 235.1 ms against 65.3 to 70.1 ms and 166.1 to 178.6 ms here; the intra-day holds sold by one path alone, on 74a447b, gave 59.0 to 69.6 ms and 126.2 to 146.9 ms',
} as const;
