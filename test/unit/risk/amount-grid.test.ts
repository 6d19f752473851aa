// unitsToAmount against viem's exact decimal text read as a number: the same double for any balance and decimals.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { formatUnits } from 'viem';
import { unitsToAmount } from '../../../src/risk/amount-grid.js';

describe('unitsToAmount', () => {
  const viems = (value: bigint, decimals: number) => Number(formatUnits(value, decimals));

  it('is the number viem\'s exact text parses to, for any balance and decimals', () => {
    // Balances around the 2^53 edge, small ones, and any uint256; decimals past the 10^22 edge too.
    const balance = fc.oneof(
      fc.bigInt({ min: 0n, max: 1n << 20n }),
      fc.bigInt({ min: (1n << 53n) - 1000n, max: (1n << 53n) + 1000n }),
      fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }),
    );
    fc.assert(fc.property(balance, fc.integer({ min: 0, max: 30 }), (value, decimals) => {
      assert.equal(unitsToAmount(value, decimals), viems(value, decimals));
    }), { numRuns: 20_000 });
  });

  it('rounds the way the text does at the edges', () => {
    for (const [value, decimals] of [[0n, 18], [1n, 18], [2n ** 53n, 18], [2n ** 53n + 1n, 0], [2n ** 53n + 1n, 18], [10n ** 22n, 22], [3n, 22], [3n, 23], [(1n << 256n) - 1n, 18]] as const) {
      assert.equal(unitsToAmount(value, decimals), viems(value, decimals), `${value} at ${decimals}`);
    }
  });
});
