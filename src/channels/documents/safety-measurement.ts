// The token-safety corpus as last measured by `npm run bench:safety`: published in the methodology with its date and commit.
export const SAFETY_MEASUREMENT = {
  date: '2026-11-26',
  commit: '6af0fa4',
  tokens: 74,
  /** Rows: labelled safe, warn, danger; columns: judged safe, warn, danger. */
  matrix: [
    [22, 0, 0],
    [0, 24, 0],
    [0, 0, 28],
  ],
  dangerPrecision: '1.000 (28/28)',
  dangerRecall: '1.000 (28/28)',
  coldMs: { p50: 35.1, p99: 96.4 },
  warmMs: { p50: 0.3, p99: 3.9 },
  roundTripsPerColdCheck: { max: 5, mean: 2.22 },
} as const;
