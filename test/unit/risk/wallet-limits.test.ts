// The wallet's own limits in the pure engine: each limit denies with its own code, only tightens, and bounds max_allowed_amount.
import { deepEqual, equal } from 'node:assert/strict';
import { describe, it } from 'node:test';
import { counterfactuals } from '../../../src/risk/counterfactuals.js';
import { evaluateRisk } from '../../../src/risk/evaluate-risk.js';
import type { RiskInput, WalletLimits } from '../../../src/risk/types.js';
import { decodeInputs, encodeInputs } from '../../../src/risk/wire.js';
import { limitsChange, limitsFromWire, limitsIssues } from '../../../src/facts/wallet/wallet-limits.js';
import { makeInput, NVDA, type Patch } from '../../support/risk-fixtures.js';

const NONE: WalletLimits = { maxTradeUsd: null, dailyNotionalUsd: null, allowedAssets: null, allowedSides: null, maxSlippageBps: null };

/** The baseline trade (4 TSLA at 250 USD, 1,000 USD, Tier 1) under `limits`, with `used` USD of today's budget spent. */
function limited(limits: Partial<WalletLimits>, patch: Patch = {}, used?: number): RiskInput {
  const input = makeInput(patch);
  return { ...input, limits: { ...NONE, ...limits }, wallet: { ...input.wallet, ...(used === undefined ? {} : { dailyNotionalUsedUsd: used }) } };
}

describe('wallet limits in the engine (ARCHITECTURE.md "Fleet limits")', () => {
  it('no limits, or limits the trade is within: allow, as before', () => {
    equal(evaluateRisk(makeInput()).decision, 'allow');
    const within = limited({ maxTradeUsd: 1_000, dailyNotionalUsd: 2_000, allowedAssets: ['TSLA'], allowedSides: ['buy'], maxSlippageBps: 100 }, {}, 1_000);
    deepEqual(evaluateRisk(within).reasons, []);
    equal(evaluateRisk(within).decision, 'allow');
  });

  it('max_trade_usd: a notional above the wallet\'s own ceiling is POLICY_MAX_TRADE', () => {
    const result = evaluateRisk(limited({ maxTradeUsd: 999.99 }));
    equal(result.decision, 'deny');
    equal(result.override, 'POLICY_MAX_TRADE');
    deepEqual(result.reasons, ["POLICY_MAX_TRADE: 1,000 USD exceeds this wallet's own per-trade limit of 999.99 USD"]);
  });

  it('daily_notional_usd: today\'s use plus this trade above the budget is POLICY_DAILY_BUDGET, naming what is left', () => {
    const result = evaluateRisk(limited({ dailyNotionalUsd: 1_500 }, {}, 600));
    equal(result.override, 'POLICY_DAILY_BUDGET');
    deepEqual(result.reasons, [
      "POLICY_DAILY_BUDGET: 1,000 USD would bring today's use to 1,600 USD, over this wallet's daily budget of 1,500 USD (900 USD left until 00:00 UTC)",
    ]);
    equal(evaluateRisk(limited({ dailyNotionalUsd: 1_600 }, {}, 600)).decision, 'allow');
  });

  it('allowed_assets: an asset off the list is POLICY_ASSET_NOT_ALLOWED', () => {
    const result = evaluateRisk(limited({ allowedAssets: ['NVDA'] }));
    equal(result.override, 'POLICY_ASSET_NOT_ALLOWED');
    deepEqual(result.reasons, ['POLICY_ASSET_NOT_ALLOWED: TSLA is not among the assets this wallet allows itself (NVDA)']);
    const nvda = limited({ allowedAssets: ['NVDA'] }, { trade: { asset: 'NVDA', contract_address: NVDA.contract_address }, registryBySymbol: NVDA, registryByAddress: NVDA });
    equal(evaluateRisk(nvda).decision, 'allow');
  });

  it('allowed_sides: a sell when only buys are allowed is POLICY_SIDE_NOT_ALLOWED', () => {
    const result = evaluateRisk(limited({ allowedSides: ['buy'] }, { trade: { side: 'sell' } }));
    equal(result.override, 'POLICY_SIDE_NOT_ALLOWED');
    deepEqual(result.reasons, ['POLICY_SIDE_NOT_ALLOWED: sell is not a side this wallet allows itself (only buy)']);
  });

  it('max_slippage_bps: a request asking more slippage than the limit is POLICY_SLIPPAGE', () => {
    const result = evaluateRisk(limited({ maxSlippageBps: 50 }));
    equal(result.override, 'POLICY_SLIPPAGE');
    deepEqual(result.reasons, ["POLICY_SLIPPAGE: max_slippage_bps 100 exceeds this wallet's own limit of 50 bps"]);
  });

  it('limits only tighten: a per-trade limit above the tier ceiling still leaves the tier\'s deny', () => {
    const result = evaluateRisk(limited({ maxTradeUsd: 1_000_000 }, { trade: { amount: 40 } }));
    equal(result.override, 'NOTIONAL_OVER_TIER_LIMIT');
  });

  it('max_allowed_amount is what is left of the day\'s budget, and nothing that costs a cent when it is spent', () => {
    const over = limited({ dailyNotionalUsd: 1_500 }, {}, 600);
    const left = counterfactuals(over, evaluateRisk(over)).max_allowed_amount!;
    // 900 USD left at 250 USD is 3.6 TSLA (and what still rounds to 900 USD): allowed at the answer, refused just above.
    equal(left, 3.6000199999999993);
    equal(evaluateRisk({ ...over, trade: { ...over.trade, amount: left } }).decision, 'allow');
    equal(evaluateRisk({ ...over, trade: { ...over.trade, amount: 3.60003 } }).decision, 'deny');
    const spent = limited({ dailyNotionalUsd: 1_500 }, {}, 1_500);
    // Spent: only an amount whose notional rounds to 0.00 USD is left.
    equal(counterfactuals(spent, evaluateRisk(spent)).max_allowed_amount, 0.000019999999999999);
    const capped = limited({ maxTradeUsd: 500 });
    equal(counterfactuals(capped, evaluateRisk(capped)).max_allowed_amount, 2.0000199999999997);
  });

  it('cross to the scoring threads and back unchanged', () => {
    const input = limited({ dailyNotionalUsd: 1_500, allowedSides: ['buy', 'sell'] }, {}, 12.34);
    const [back, plain] = decodeInputs(encodeInputs([input, makeInput()]));
    deepEqual(back!.limits, input.limits);
    equal(back!.wallet.dailyNotionalUsedUsd, 12.34);
    // Facts without limits stay without them, so records written before limits replay as they were.
    equal('limits' in plain!, false);
    equal('dailyNotionalUsedUsd' in plain!.wallet, false);
  });
});

describe('wallet limits on the wire', () => {
  it('normalises symbols and sides, and an empty body is no limits', () => {
    deepEqual(limitsFromWire({ allowed_assets: ['tsla', ' TSLA', 'nvda'], allowed_sides: ['sell', 'buy'] }), {
      ...NONE, allowedAssets: ['TSLA', 'NVDA'], allowedSides: ['buy', 'sell'],
    });
    equal(limitsFromWire({}), null);
    equal(limitsFromWire(null), null);
  });

  it('refuses a per-trade limit above the tier and a symbol outside the registry, naming each', () => {
    const issues = limitsIssues({ ...NONE, maxTradeUsd: 5_001, allowedAssets: ['TSLA', 'FOO'] }, 5_000, (symbol) => symbol === 'TSLA');
    deepEqual(issues.map((issue) => [issue.loc, issue.msg]), [
      [['body', 'limits', 'max_trade_usd'], "Value error, max_trade_usd 5001 is above this wallet's tier ceiling of 5000 USD; a limit may only tighten the tier"],
      [['body', 'limits', 'allowed_assets', 1], 'Value error, FOO is not in the official registry (GET /api/v1/assets lists its symbols)'],
    ]);
    deepEqual(limitsIssues({ ...NONE, maxTradeUsd: 5_000 }, 5_000, () => true), []);
  });

  it('says what changed, field by field', () => {
    equal(limitsChange(null, { ...NONE, dailyNotionalUsd: 500 }), 'daily_notional_usd: null -> 500');
    equal(limitsChange({ ...NONE, dailyNotionalUsd: 500 }, { ...NONE, dailyNotionalUsd: 5_000, allowedSides: ['buy'] }),
      'daily_notional_usd: 500 -> 5000, allowed_sides: null -> ["buy"]');
    equal(limitsChange({ ...NONE, maxSlippageBps: 50 }, { ...NONE, maxSlippageBps: 50 }), '');
  });
});
