// The proven sell as the stored token-safety result keeps it and an evaluation reads it back.
import { deepStrictEqual, equal, throws } from 'node:assert/strict';
import { describe, it } from 'node:test';
import { provenSell, provenSellAmount } from '../../../../src/facts/safety/proven-sell.js';
import { notSimulated, type SellSimulation } from '../../../../src/facts/safety/sell-simulation.js';

const sized = (ok: boolean | null, amount: string | null): SellSimulation => ({ ...notSimulated('test'), sized_sell_ok: ok, sized_sell_amount: amount });

describe('provenSell (written into safety:<address>)', () => {
  it('keeps the sized sell that went through, with the decimals the check used', () => {
    deepStrictEqual(provenSell(sized(true, '5000000000000000000000'), 18), { units: '5000000000000000000000', decimals: 18 });
    deepStrictEqual(provenSell(sized(true, '12345'), 6), { units: '12345', decimals: 6 });
  });

  it('reads 18 decimals for a token that answered no decimals(), the grid its trades are read on', () => {
    deepStrictEqual(provenSell(sized(true, '7'), null), { units: '7', decimals: 18 });
  });

  it('keeps nothing when the sized sell reverted, did not run, or nothing was simulated', () => {
    equal(provenSell(sized(false, '5000'), 18), null);
    equal(provenSell(sized(null, null), 18), null);
    equal(provenSell({}, 18), null);
    equal(provenSell(null, 18), null);
  });
});

describe('provenSellAmount (read by an evaluation)', () => {
  it('gives token units, rounded down to what the service reads', () => {
    equal(provenSellAmount({ sell_proven: { units: '5000000000000000000000', decimals: 18 } }), 5000);
    equal(provenSellAmount({ sell_proven: { units: '12345', decimals: 6 } }), 0.012345);
    equal(provenSellAmount({ sell_proven: { units: '4999999999999999999999', decimals: 18 } })! < 5000, true);
  });

  it('has none for a result stored before the figure was kept', () => {
    equal(provenSellAmount({}), undefined);
  });

  it('refuses a malformed figure, so the evaluation fails closed', () => {
    for (const sell_proven of [null, '5000', { units: 5000, decimals: 18 }, { units: '-1', decimals: 18 }, { units: '1', decimals: 1.5 }, { units: '1' }]) {
      throws(() => provenSellAmount({ sell_proven }), /stored token-safety result is malformed: sell_proven/, JSON.stringify(sell_proven));
    }
  });
});
