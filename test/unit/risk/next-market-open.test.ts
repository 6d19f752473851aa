// The next NYSE regular-session open: weekends, holidays, early closes and clock changes.
import { equal, ok } from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { marketSession } from '../../../src/risk/market-hours.js';
import { nextMarketOpen } from '../../../src/risk/next-market-open.js';

const utc = (y: number, m: number, d: number, h: number, min = 0) => Date.UTC(y, m - 1, d, h, min);

describe('nextMarketOpen', () => {
  it('skips Good Friday: Thursday evening to Monday 09:30 EDT', () => {
    equal(nextMarketOpen(utc(2026, 4, 2, 22)), utc(2026, 4, 6, 13, 30) / 1000);
  });

  it('skips Thanksgiving, then the early close leads to Monday', () => {
    equal(nextMarketOpen(utc(2026, 11, 25, 22)), utc(2026, 11, 27, 14, 30) / 1000);
    // Friday 27 November closes at 13:00 ET (18:00 UTC); at 14:00 ET the next open is Monday.
    equal(nextMarketOpen(utc(2026, 11, 27, 19)), utc(2026, 11, 30, 14, 30) / 1000);
  });

  it('crosses the March clock change: Friday EST to Monday 09:30 EDT (13:30 UTC)', () => {
    equal(nextMarketOpen(utc(2026, 3, 6, 22)), utc(2026, 3, 9, 13, 30) / 1000);
  });

  it('during a session, the next day\'s open; before 09:30, today\'s', () => {
    equal(nextMarketOpen(utc(2026, 1, 6, 15)), utc(2026, 1, 7, 14, 30) / 1000);
    equal(nextMarketOpen(utc(2026, 1, 6, 13)), utc(2026, 1, 6, 14, 30) / 1000);
  });

  it('on the property: open at the answer; from a closed market, closed at every half hour before it', () => {
    fc.assert(fc.property(fc.integer({ min: utc(1990, 1, 1, 0), max: utc(2090, 1, 1, 0) }), (nowMs) => {
      const open = nextMarketOpen(nowMs);
      ok(open !== null);
      ok(marketSession(open * 1000).open);
      ok(!marketSession(open * 1000 - 60_000).open);
      if (marketSession(nowMs).open) return;
      for (let t = nowMs; t < open * 1000; t += 30 * 60_000) ok(!marketSession(t).open);
    }), { numRuns: 300 });
  });
});
