// The token-safety corpus as last measured by `npm run bench:safety`: published in the methodology with its date and commit.
export const SAFETY_MEASUREMENT = {
  date: '2026-11-26',
  commit: '0553a21',
  tokens: 78,
  /** Rows: labelled safe, warn, danger; columns: judged safe, warn, danger. */
  matrix: [
    [24, 0, 0],
    [0, 26, 0],
    [0, 0, 28],
  ],
  dangerPrecision: '1.000 (28/28)',
  dangerRecall: '1.000 (28/28)',
  coldMs: { p50: 32.1, p99: 73.8 },
  warmMs: { p50: 0.4, p99: 4.6 },
  roundTripsPerColdCheck: { max: 2, mean: '2.00' },
} as const;
