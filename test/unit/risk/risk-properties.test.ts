// Properties of the risk engine over arbitrary inputs: score shape, band semantics, determinism, fail-closed.
import { deepStrictEqual, ok, strictEqual } from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { bandFor, evaluateRisk } from '../../../src/risk/evaluate-risk.js';
import { isAdvisory, OVERRIDE_PRIORITY, REASON_CODES } from '../../../src/risk/reason-codes.js';
import { CATEGORY_MAX } from '../../../src/risk/weights.js';
import type { RiskInput } from '../../../src/risk/types.js';
import { riskInput } from '../../support/risk-arbitraries.js';
import { tierPolicy } from '../../../src/risk/tiers.js';

const RUNS = { numRuns: 2000 };
const CODES = new Set(Object.keys(REASON_CODES));

function codeOf(reasonText: string): string {
  const body = isAdvisory(reasonText) ? reasonText.slice('ADVISORY: '.length) : reasonText;
  return body.slice(0, body.indexOf(':'));
}

describe('risk engine properties', () => {
  it('the score is an integer 0..100, the sum of categories each within its maximum', () => {
    fc.assert(fc.property(riskInput, (input) => {
      const { risk_score, categories } = evaluateRisk(input);
      ok(Number.isInteger(risk_score) && risk_score >= 0 && risk_score <= 100);
      const keys = Object.keys(CATEGORY_MAX) as Array<keyof typeof CATEGORY_MAX>;
      deepStrictEqual(Object.keys(categories), keys);
      for (const key of keys) ok(Number.isInteger(categories[key]) && categories[key] >= 0 && categories[key] <= CATEGORY_MAX[key], key);
      strictEqual(risk_score, keys.reduce((sum, key) => sum + categories[key], 0));
    }), RUNS);
  });

  it('a preview above the entitled tier is always a deny that says so first', () => {
    fc.assert(fc.property(riskInput, (input) => {
      const result = evaluateRisk(input);
      if (input.policy.tier > input.entitledTier) {
        strictEqual(result.decision, 'deny');
        strictEqual(result.override, 'PREVIEW_ABOVE_ENTITLEMENT');
        ok(result.reasons[0]!.startsWith('PREVIEW_ABOVE_ENTITLEMENT: '));
      } else {
        ok(!result.reasons.some((text) => text.startsWith('PREVIEW_ABOVE_ENTITLEMENT')));
      }
    }), RUNS);
  });

  it('a preview is never more permissive than the same trade at the entitled tier', () => {
    const rank = { allow: 0, warn: 1, deny: 2 } as const;
    fc.assert(fc.property(riskInput, (input) => {
      const atEntitlement = evaluateRisk({ ...input, policy: tierPolicy(input.entitledTier) });
      ok(rank[evaluateRisk(input).decision] >= rank[atEntitlement.decision] || input.policy.tier < input.entitledTier);
    }), RUNS);
  });

  it('the decision is the band (raised to warn by SELL_SIZE_UNPROVEN) unless an override fired, and then it is deny', () => {
    fc.assert(fc.property(riskInput, (input) => {
      const result = evaluateRisk(input);
      if (result.override === null) {
        const band = bandFor(result.risk_score);
        const unproven = result.reasons.some((text) => text.startsWith('SELL_SIZE_UNPROVEN: '));
        strictEqual(result.decision, unproven && band === 'allow' ? 'warn' : band);
      } else {
        strictEqual(result.decision, 'deny');
        ok(OVERRIDE_PRIORITY.includes(result.override as (typeof OVERRIDE_PRIORITY)[number]));
        ok(result.reasons[0]!.startsWith(`${result.override}: `));
      }
    }), RUNS);
  });

  it('every reason carries a catalogued code; warn and deny always carry a blocking reason', () => {
    fc.assert(fc.property(riskInput, (input) => {
      const result = evaluateRisk(input);
      for (const text of result.reasons) ok(CODES.has(codeOf(text)), text);
      for (const text of result.reasons) strictEqual(isAdvisory(text), REASON_CODES[codeOf(text) as keyof typeof REASON_CODES].kind === 'advisory');
      if (result.decision !== 'allow') ok(result.reasons.some((text) => !isAdvisory(text)));
    }), RUNS);
  });

  it('the notional is finite and not negative', () => {
    fc.assert(fc.property(riskInput, (input) => {
      const { calculated_notional_usd: notional } = evaluateRisk(input);
      ok(Number.isFinite(notional) && notional >= 0, String(notional));
    }), RUNS);
  });

  it('is deterministic: twice, and on a structured clone, the results are deep-equal', () => {
    fc.assert(fc.property(riskInput, (input) => {
      const first = evaluateRisk(input);
      deepStrictEqual(evaluateRisk(input), first);
      deepStrictEqual(evaluateRisk(structuredClone(input)), first);
    }), RUNS);
  });

  it('never allows without a price, with a registry mismatch, or with a danger flag', () => {
    const registryMismatch = (input: RiskInput): boolean =>
      input.registryBySymbol !== null && input.registryBySymbol.contract_address.toLowerCase() !== input.trade.contract_address.toLowerCase();
    fc.assert(fc.property(riskInput, (input) => {
      const result = evaluateRisk(input);
      if (input.price.source === 'unavailable' || registryMismatch(input) || input.safety.flaggedDanger) {
        strictEqual(result.decision, 'deny');
      }
    }), RUNS);
  });
});
