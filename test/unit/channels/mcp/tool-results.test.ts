// A tool result's JSON written from its text content is JSON.stringify's, byte for byte.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { failure, result, resultJson } from '../../../../src/channels/mcp/tool-results.js';
import { toolVerdictJson } from '../../../../src/evaluation/verdict-text.js';

describe('resultJson', () => {
  it('is JSON.stringify of any result or failure built by the tools', () => {
    const structured = fc.dictionary(fc.string(), fc.jsonValue());
    fc.assert(fc.property(structured, fc.string(), (value, error) => {
      const built = result(value);
      assert.equal(resultJson(built), JSON.stringify(built));
      const failed = failure(error, value);
      assert.equal(resultJson(failed), JSON.stringify(failed));
    }), { numRuns: 2_000 });
    const quoted = result({ reasons: ['a "quoted" reason', 'é \u2028 \\ /'], n: 1.5e-7 });
    assert.equal(resultJson(quoted), JSON.stringify(quoted));
  });

  it("is JSON.stringify of a verdict result whose JSON and quoted text were written from its layout", () => {
    const output = {
      decision: 'allow', reasons: ['ADVISORY: MARKET_CLOSED: "quoted" \\ é \u2028'], tier: 1, max_trade_usd: 5000, calculated_notional_usd: 350.25,
      price_impact_bps: null, price_usd: 350.25, price_source: 'fallback_default', risk_score: 11, request_id: 'r-"1"', audit_hash: 'ab'.repeat(32), audit_seq: 3,
    };
    const built = result(output, toolVerdictJson(output));
    assert.equal(resultJson(built), JSON.stringify(built));
  });

  it('writes any other result with JSON.stringify', () => {
    const other: CallToolResult = { content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { a: 2 } };
    assert.equal(resultJson(other), JSON.stringify(other));
    const extended = { ...result({ a: 1 }), _meta: { x: 1 } };
    assert.equal(resultJson(extended), JSON.stringify(extended));
    // A copy keeps what a built result carries beside its members, but not its content: it is written whole.
    const output = { decision: 'allow', n: 1 };
    const copied = { ...result(output, toolVerdictJson(output)), content: [{ type: 'text' as const, text: '{"other":"text"}' }] };
    assert.equal(resultJson(copied), JSON.stringify(copied));
  });
});
