// Numbers in reason strings: en-US grouping with at most two decimals, written without Intl where no rounding is needed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { formatNumber } from '../../../src/risk/format.js';

const WHOLE_AND_CENTS = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
const SMALL = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 4 });
const intl = (value: number) => (Math.abs(value) > 0 && Math.abs(value) < 1 ? SMALL : WHOLE_AND_CENTS).format(value);

describe('formatNumber', () => {
  it('writes what Intl writes for en-US, whole numbers, cents, roundings and the odd values alike', () => {
    const cases = [0, -0, 1, 999, 1000, 7200, 1050.75, -1234.5, 350.25, 2.345, 1.005, 0.000123, -0.5, 1e14 + 0.5, 999_999_999_999_999, 1e15, 1e21, NaN, Infinity, -Infinity];
    for (const value of cases) assert.equal(formatNumber(value), intl(value), String(value));
  });

  it('agrees with Intl on any double, any whole number and any amount in cents', () => {
    const cents = fc.integer({ min: -1e13, max: 1e13 }).map((n) => n / 100);
    fc.assert(fc.property(fc.oneof(fc.double(), fc.integer(), fc.maxSafeInteger(), cents), (value) => formatNumber(value) === intl(value)), { numRuns: 20_000 });
  });
});
