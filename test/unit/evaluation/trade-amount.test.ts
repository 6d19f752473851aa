// Which amounts a token can carry: the grid an amount is read on, and the 422 issue for less than one base unit.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { amountIssue, tradeDecimals } from '../../../src/evaluation/trade-amount.js';
import { Registry } from '../../../src/facts/registry/registry.js';
import { unitsAtMost } from '../../../src/risk/amount-grid.js';

const TSLA = { symbol: 'TSLA', contract_address: '0x00000000000000000000000000000000000000a1', decimals: 18, is_native: false, price_feed: null, default_price_usd: 400 };
const USDX = { symbol: 'USDX', contract_address: '0x00000000000000000000000000000000000000b2', decimals: 6, is_native: false, price_feed: null, default_price_usd: 1 };
const registry = new Registry(4663, [TSLA, USDX]);
const UNLISTED = '0x00000000000000000000000000000000000000c3';

const trade = (asset: string, contract_address: string, amount: number) => ({ asset, contract_address, amount });

describe('tradeDecimals', () => {
  it('reads the claimed symbol\'s decimals, else the contract\'s, else 18 for a contract the registry does not list', () => {
    assert.equal(tradeDecimals(registry, trade('usdx', UNLISTED, 1)), 6);
    assert.equal(tradeDecimals(registry, trade('NOPE', '0x00000000000000000000000000000000000000B2', 1)), 6);
    assert.equal(tradeDecimals(registry, trade('NOPE', UNLISTED, 1)), 18);
  });
});

describe('amountIssue', () => {
  it('refuses less than one base unit at the token\'s decimals, in FastAPI\'s shape at body.amount', () => {
    const error = 'amount is less than one base unit of the token (10^-6 at 6 decimals)';
    assert.deepEqual(amountIssue(registry, trade('USDX', USDX.contract_address, 9e-7)), {
      loc: ['body', 'amount'], msg: `Value error, ${error}`, type: 'value_error', input: 9e-7, ctx: { error },
    });
    for (const amount of [1e-30, 5e-324, 1e-19]) assert.notEqual(amountIssue(registry, trade('TSLA', TSLA.contract_address, amount)), null, String(amount));
    assert.notEqual(amountIssue(registry, trade('NOPE', UNLISTED, 1e-19)), null);
  });

  it('takes one base unit and more, exactly where the permit\'s maxAmount is at least one unit', () => {
    for (const [asset, address, decimals, amounts] of [['USDX', USDX.contract_address, 6, [1e-6, 1.5e-6, 1, 1e30]], ['TSLA', TSLA.contract_address, 18, [1e-18, 2.5e-18, 1]]] as const) {
      for (const amount of amounts) {
        assert.equal(amountIssue(registry, trade(asset, address, amount)), null, `${amount} ${asset}`);
        assert.ok(unitsAtMost(amount, decimals)! >= 1n);
      }
    }
  });
});
