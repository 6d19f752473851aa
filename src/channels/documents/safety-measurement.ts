// The token-safety corpus as last measured by `npm run bench:safety`: published in the methodology with its date and commit.
export const SAFETY_MEASUREMENT = {
  date: '2026-11-28',
  commit: 'ea19fe7',
  tokens: 101,
  /** Rows: labelled safe, warn, danger; columns: judged safe, warn, danger. */
  matrix: [
    [33, 0, 0],
    [0, 34, 0],
    [0, 0, 34],
  ],
  dangerPrecision: '1.000 (34/34)',
  dangerRecall: '1.000 (34/34)',
  coldMs: { p50: 58.8, p99: 129.8 },
  warmMs: { p50: 0.4, p99: 3.7 },
  roundTripsPerColdCheck: { max: 2, mean: '2.00' },
  /** What else ran: latency is only comparable with a run under the same load. */
  conditions: 'an idle 2-core machine (load average under 1.5), nothing else running; two more runs in the same minutes gave cold p50 68.6 and 60.9 ms, p99 129.2 and 111.9 ms',
} as const;
