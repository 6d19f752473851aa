// The verdict's JSON written from its layout is JSON.stringify's, character for character, whatever the verdict holds.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { toolVerdictJson, verdictText } from '../../../src/evaluation/verdict-text.js';
import type { Verdict } from '../../../src/schemas/trade.js';

/** Any text, lone surrogates, quotes, controls and pairs included. */
const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('"', '\\', '\u0000', '\ud800', '\u{1F680}', 'OWNER_CAN_MINT: "quoted"'));
/** Figures as the engine makes them and as no engine should: fractions, huge, tiny, -0, NaN, infinities. */
const figure = fc.oneof(fc.double(), fc.integer(), fc.constantFrom(-0, NaN, Infinity, -Infinity, 1e21, 5e-324, 0.1 + 0.2));

const contractRisk = fc.oneof(
  fc.constant(null),
  fc.record({ severity: fc.constantFrom('safe', 'warn', 'danger', 'unknown'), flagged_danger: fc.boolean(), risk_factors: fc.array(text, { maxLength: 3 }) }),
);

/** A verdict in recordVerdict's layout, its members' values drawn from anything a verdict could hold. */
const laidOut = fc.record({
  decision: fc.oneof(fc.constantFrom('allow', 'warn', 'deny'), text),
  reasons: fc.array(text, { maxLength: 3 }),
  tier: fc.oneof(fc.constantFrom(1, 2, 3), figure, text),
  max_trade_usd: figure,
  calculated_notional_usd: figure,
  price_impact_bps: fc.oneof(fc.constant(null), figure),
  price_usd: figure,
  price_source: fc.oneof(fc.constantFrom('oracle', 'registry_default', 'venue'), text),
  risk_score: figure,
  timestamp: figure,
  request_id: fc.oneof(fc.constant(null), text),
  contract_risk: contractRisk,
  daily_pnl_usd: figure,
  audit_hash: fc.oneof(fc.constant(null), fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 }), text),
  audit_seq: fc.oneof(fc.constant(null), figure),
});

describe('verdictText', () => {
  it('writes what JSON.stringify writes for a verdict in the recorded layout', () => {
    fc.assert(fc.property(laidOut, (verdict) => verdictText(verdict as unknown as Verdict) === JSON.stringify(verdict)), { numRuns: 3000 });
  });

  it('writes what JSON.stringify writes for a verdict with more, fewer or reordered members, or values of other types', () => {
    const other = laidOut.chain((verdict) => fc.oneof(
      // Counterfactuals, a permit, an error and its code after the layout.
      fc.record({ max_allowed_amount: fc.oneof(fc.constant(null), figure), permit: fc.constant({ signature: '0xab' }), error: text, code: text }, { requiredKeys: [] })
        .map((extra) => ({ ...verdict, ...extra })),
      // A member missing, or undefined (JSON.stringify leaves it out).
      fc.constantFrom(...Object.keys(verdict)).map((name) => Object.fromEntries(Object.entries(verdict).filter(([key]) => key !== name))),
      fc.constantFrom(...Object.keys(verdict)).map((name) => ({ ...verdict, [name]: undefined })),
      // The same members in another order.
      fc.shuffledSubarray(Object.entries(verdict), { minLength: Object.keys(verdict).length }).map((entries) => Object.fromEntries(entries)),
      // A member of a type the layout does not expect.
      fc.tuple(fc.constantFrom(...Object.keys(verdict)), fc.oneof(fc.boolean(), fc.object(), fc.array(figure), fc.string())).map(([name, value]) => ({ ...verdict, [name]: value })),
      // contract_risk with its members reordered or one more.
      fc.constant({ ...verdict, contract_risk: { flagged_danger: true, severity: 'warn', risk_factors: [] } }),
      fc.constant({ ...verdict, contract_risk: { severity: 'warn', flagged_danger: false, risk_factors: ['X'], extra: 1 } }),
    ));
    fc.assert(fc.property(other, (verdict) => verdictText(verdict as unknown as Verdict) === JSON.stringify(verdict)), { numRuns: 3000 });
  });

  it('writes an allow in the recorded layout without JSON.stringify', () => {
    // Typed as the service's Verdict, so the fixture has the members' real types (a tier is an integer).
    const allow: Verdict = {
      decision: 'allow', reasons: ['ADVISORY: MARKET_CLOSED: NYSE regular session is closed (weekend); the 24/5 feed may lag'], tier: 1, max_trade_usd: 1000, calculated_notional_usd: 500.24, price_impact_bps: null, price_usd: 250.12,
      price_source: 'fallback_default', risk_score: 12, timestamp: 1795000000, request_id: 'r-1',
      contract_risk: { severity: 'safe', flagged_danger: false, risk_factors: [] }, daily_pnl_usd: 0, audit_hash: 'ab'.repeat(32), audit_seq: 7,
    };
    const expected = JSON.stringify(allow);
    // A reason list is written by JSON.stringify the first time it is met, and from then on as remembered.
    verdictText(allow);
    const stringify = JSON.stringify;
    JSON.stringify = () => {
      throw new Error('JSON.stringify was called');
    };
    try {
      assert.equal(verdictText(allow), expected);
    } finally {
      JSON.stringify = stringify;
    }
  });

  it('writes each reason list as its own when lists that share reasons come in turn (the lists met before are remembered)', () => {
    const [a, b, c] = ['ADVISORY: MARKET_CLOSED: closed', 'PRICE_FALLBACK_DEFAULT: "quoted" \\ words', 'PRICE_STALE: old'];
    const base = { decision: 'allow', reasons: [] as unknown[], tier: 1, max_trade_usd: 5000, calculated_notional_usd: 350.25, price_impact_bps: null,
      price_usd: 350.25, price_source: 'fallback_default', risk_score: 11, timestamp: 1, request_id: null,
      contract_risk: { severity: 'unchecked', flagged_danger: false, risk_factors: [] }, daily_pnl_usd: 0, audit_hash: null, audit_seq: null };
    const lists: unknown[][] = [[a, b], [a], [a, b, c], [a, b], [b, a], [a], [`${a}`.slice(0), b], [a, 1], [a, b], [a, null], [a]];
    for (const reasons of lists) {
      const verdict = { ...base, reasons };
      assert.equal(verdictText(verdict as unknown as Verdict), JSON.stringify(verdict));
    }
  });

  it("writes what JSON.stringify writes for evaluate_trade's output, in its layout and out of it, and that text quoted as JSON.stringify quotes it", () => {
    const toolOutput = laidOut.map(({ timestamp: _t, contract_risk: _c, daily_pnl_usd: _d, ...output }) => output);
    const other = toolOutput.chain((output) => fc.oneof(
      fc.constant(output),
      fc.record({ max_allowed_amount: fc.oneof(fc.constant(null), figure), audit_chain: fc.nat() }, { requiredKeys: [] }).map((extra) => ({ ...output, ...extra })),
      fc.constantFrom(...Object.keys(output)).map((name) => Object.fromEntries(Object.entries(output).filter(([key]) => key !== name))),
      fc.shuffledSubarray(Object.entries(output), { minLength: Object.keys(output).length }).map((entries) => Object.fromEntries(entries)),
      fc.tuple(fc.constantFrom(...Object.keys(output)), fc.oneof(fc.boolean(), fc.object(), fc.array(figure), fc.string())).map(([name, value]) => ({ ...output, [name]: value })),
    ));
    fc.assert(fc.property(other, (output) => {
      const json = toolVerdictJson(output);
      return json.text === JSON.stringify(output) && `"${json.quoted}"` === JSON.stringify(json.text);
    }), { numRuns: 3000 });
  });
});
