// SELL_SIZE_UNPROVEN: a trade larger than the largest sell the token-safety check saw go through at once is at least a warn.
import { deepStrictEqual, equal, ok, strictEqual } from 'node:assert/strict';
import { describe, it } from 'node:test';
import { amountAtMost, unitsAtLeast } from '../../../src/risk/amount-grid.js';
import { scoreTrade } from '../../../src/risk/counterfactuals.js';
import { evaluateRisk } from '../../../src/risk/evaluate-risk.js';
import type { RiskInput, SafetyFact } from '../../../src/risk/types.js';
import { decodeInputs, encodeInputs } from '../../../src/risk/wire.js';
import { makeInput, mergePatches, UNREGISTERED_ALLOWED } from '../../support/risk-fixtures.js';

const ZERO = { registry: 0, contract: 0, price: 0, wallet: 0, trade: 0 };
/** 4 TSLA at 250 USD (1,000 USD) on a token whose check sold at most `proven` TSLA at once. */
const checked = (proven: number | undefined, safety: Partial<SafetyFact> = {}, amount = 4): RiskInput =>
  makeInput({ trade: { amount }, safety: { severity: 'safe', ...(proven === undefined ? {} : { sellProvenAmount: proven }), ...safety } });
const unproven = (input: RiskInput): boolean => evaluateRisk(input).reasons.some((text) => text.startsWith('SELL_SIZE_UNPROVEN: '));

describe('SELL_SIZE_UNPROVEN', () => {
  it('fires above the proven amount: contract points as a warn, and the verdict is warn though the score is in the allow band', () => {
    const got = evaluateRisk(checked(3));
    deepStrictEqual(got, {
      decision: 'warn',
      risk_score: 15,
      reasons: ['SELL_SIZE_UNPROVEN: a sell of 4 TSLA at once was not shown to go through: the token-safety check sold at most 3 at once'],
      calculated_notional_usd: 1000,
      categories: { ...ZERO, contract: 15 },
      override: null,
    });
  });

  it('fires on a sell as on a buy: a buyer sells later, a seller now', () => {
    const got = evaluateRisk(makeInput({ trade: { side: 'sell' }, safety: { severity: 'safe', sellProvenAmount: 3.5 } }));
    deepStrictEqual([got.decision, got.reasons], ['warn', ['SELL_SIZE_UNPROVEN: a sell of 4 TSLA at once was not shown to go through: the token-safety check sold at most 3.5 at once']]);
  });

  it('does not fire at or below the proven amount', () => {
    for (const proven of [4, 4.000001, 1e6]) {
      const got = evaluateRisk(checked(proven));
      deepStrictEqual([got.decision, got.reasons, got.risk_score], ['allow', [], 0], String(proven));
    }
  });

  it('writes every digit of amounts that two decimals would make look equal', () => {
    const got = evaluateRisk(checked(3.999999, {}, 3.9999995));
    deepStrictEqual(got.reasons, ['SELL_SIZE_UNPROVEN: a sell of 3.9999995 TSLA at once was not shown to go through: the token-safety check sold at most 3.999999 at once']);
  });

  it('adds to a warn result within the contract category cap, and stays a warn', () => {
    const got = evaluateRisk(checked(1, { severity: 'warn', riskFactors: ['SELL_TAX: 10%'] }));
    deepStrictEqual([got.decision, got.categories.contract, got.risk_score], ['warn', 30, 30]);
    deepStrictEqual(got.reasons, [
      `CONTRACT_SAFETY_WARN: token-safety check returned severity=warn for ${makeInput().trade.contract_address} (risk factors: SELL_TAX: 10%)`,
      'SELL_SIZE_UNPROVEN: a sell of 4 TSLA at once was not shown to go through: the token-safety check sold at most 1 at once',
    ]);
  });

  it('never fires for a danger result, a danger flag or an unchecked token: those are judged already', () => {
    strictEqual(unproven(checked(1, { severity: 'danger' })), false);
    strictEqual(unproven(checked(1, { severity: 'safe', flaggedDanger: true })), false);
    strictEqual(unproven(checked(1, { severity: 'unchecked' })), false);
    equal(evaluateRisk(checked(1, { severity: 'danger' })).override, 'CONTRACT_FLAGGED_DANGER');
  });

  it('never fires without the figure: no sized sell ran, or facts recorded before the rule', () => {
    deepStrictEqual(evaluateRisk(checked(undefined, {}, 1e9)).reasons.filter((text) => text.startsWith('SELL_SIZE_UNPROVEN')), []);
    deepStrictEqual(evaluateRisk(checked(undefined)), evaluateRisk(makeInput({ safety: { severity: 'safe' } })));
  });

  it('keeps an override a deny and joins the other reasons of an unregistered token', () => {
    const over = evaluateRisk(makeInput({ trade: { amount: 30 }, safety: { severity: 'safe', sellProvenAmount: 3 } }));
    deepStrictEqual([over.decision, over.override], ['deny', 'NOTIONAL_OVER_TIER_LIMIT']);
    ok(over.reasons.includes('SELL_SIZE_UNPROVEN: a sell of 30 TSLA at once was not shown to go through: the token-safety check sold at most 3 at once'));
    const foo = evaluateRisk(makeInput(mergePatches(UNREGISTERED_ALLOWED, { safety: { sellProvenAmount: 2 } })));
    deepStrictEqual([foo.decision, foo.risk_score], ['warn', 35]);
    deepStrictEqual(foo.reasons.slice(1), ['SELL_SIZE_UNPROVEN: a sell of 4 FOO at once was not shown to go through: the token-safety check sold at most 2 at once']);
    ok(foo.reasons[0]!.startsWith('UNREGISTERED_ALLOWED: '));
  });

  it('max_allowed_amount comes out at the proven amount, which the engine allows', () => {
    const result = scoreTrade(checked(3.25));
    equal(result.counterfactuals?.max_allowed_amount, 3.25);
    equal(evaluateRisk(checked(3.25, {}, 3.25)).decision, 'allow');
    // No tier lifts a sell the check did not see.
    equal(result.counterfactuals?.tier_needed, undefined);
  });

  it('crosses to the scoring threads and back with the figure, and without it when absent', () => {
    const [withFigure, without] = decodeInputs(encodeInputs([checked(3.25), checked(undefined)]));
    deepStrictEqual(withFigure!.safety, { severity: 'safe', flaggedDanger: false, riskFactors: [], sellProvenAmount: 3.25 });
    deepStrictEqual(without!.safety, { severity: 'safe', flaggedDanger: false, riskFactors: [] });
    deepStrictEqual(evaluateRisk(withFigure!), evaluateRisk(checked(3.25)));
  });
});

describe('amountAtMost (the proven figure rounded down to what the service reads)', () => {
  it('is exact where a double is, and never reads above the base units where it is not', () => {
    equal(amountAtMost(5_000n * 10n ** 18n, 18), 5000);
    equal(amountAtMost(1n, 18), 1e-18);
    equal(amountAtMost(0n, 18), 0);
    // 4,999.999999999999999999 TSLA: the nearest double is 5,000, which reads as more than was sold.
    const units = 5_000n * 10n ** 18n - 1n;
    const amount = amountAtMost(units, 18);
    ok(amount < 5000, String(amount));
    ok(unitsAtLeast(amount, 18)! <= units);
    for (const [sold, decimals] of [[123_456_789_012_345_678_901n, 18], [10_000_001n, 6], [987_654_321_987_654_321_987n, 24]] as const) {
      const figure = amountAtMost(sold, decimals);
      ok(unitsAtLeast(figure, decimals)! <= sold, `${sold} at ${decimals}`);
      const above = figure + figure * Number.EPSILON;
      ok(unitsAtLeast(above, decimals)! > sold, `the next double reads above ${sold} at ${decimals}`);
    }
  });
});
