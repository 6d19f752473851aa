// The token-safety corpus as last measured by `npm run bench:safety`: published in the methodology with its date and commit.
export const SAFETY_MEASUREMENT = {
  date: '2026-11-26',
  commit: '9ebfd7c',
  tokens: 78,
  /** Rows: labelled safe, warn, danger; columns: judged safe, warn, danger. */
  matrix: [
    [24, 0, 0],
    [0, 26, 0],
    [0, 0, 28],
  ],
  dangerPrecision: '1.000 (28/28)',
  dangerRecall: '1.000 (28/28)',
  coldMs: { p50: 35.8, p99: 172.5 },
  warmMs: { p50: 0.3, p99: 7.4 },
  roundTripsPerColdCheck: { max: 2, mean: '2.00' },
} as const;
