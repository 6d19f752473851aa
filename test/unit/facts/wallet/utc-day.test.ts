// The UTC day a daily P&L snapshot is keyed by, kept between calls: always the date Date writes for that instant.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { utcDay } from '../../../../src/facts/wallet/daily-pnl.js';

const DAY = 24 * 60 * 60 * 1000;

describe('utcDay', () => {
  it('is the ISO date of the instant, in any order of calls, midnights and the instant before them included', () => {
    const instant = fc.oneof(fc.integer({ min: -8.64e15, max: 8.64e15 - 1 }), fc.integer({ min: -1000, max: 1000 }).map((day) => day * DAY), fc.integer({ min: -1000, max: 1000 }).map((day) => day * DAY - 1));
    fc.assert(fc.property(fc.array(instant, { minLength: 1, maxLength: 20 }), (instants) => {
      for (const ms of instants) assert.equal(utcDay(ms), new Date(ms).toISOString().slice(0, 10));
    }), { numRuns: 2000 });
  });
});
