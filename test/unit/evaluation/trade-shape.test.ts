// The trade and the verdict are each stated once: channel variants and the engine's trade follow the one schema.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { listedTools } from '../../../src/schemas/mcp-tools.js';
import { engineTrade, McpTradeRequest, TradeRequest, Verdict } from '../../../src/schemas/trade.js';
import { wireSchema } from '../../../src/schemas/mcp-tools.js';
import type { TradeInput } from '../../../src/risk/types.js';

// The engine owns TradeInput (src/risk/ imports nothing above it); this holds it to the schema at compile time:
// every engine field is a TradeRequest field of the same type once its default is filled in.
type Defaulted = { [K in keyof TradeInput]-?: Exclude<TradeRequest[K], undefined> };
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const engineTradeIsTheRequest: Same<Defaulted, TradeInput> = true;

const TRADE = { wallet: '0x1111111111111111111111111111111111111111', asset: 'TSLA', contract_address: '0xa6f91334bed73452616829fac9fa646b4b2b76e0', side: 'buy' as const, amount: 1 };

describe('one trade shape', () => {
  it('the engine trade is the schema\'s fields with the spec\'s defaults', () => {
    assert.equal(engineTradeIsTheRequest, true);
    assert.deepEqual(engineTrade(TRADE), { ...TRADE, max_slippage_bps: 100, deadline: null, allow_unregistered: false, request_id: null });
    assert.deepEqual(Object.keys(engineTrade(TRADE)).filter((field) => !(field in TradeRequest.properties)), []);
  });

  it('MCP\'s trade is REST\'s without deadline and allow_unregistered, and with slippage up to 10000', () => {
    const { deadline: _d, allow_unregistered: _a, max_slippage_bps: rest, ...shared } = TradeRequest.properties;
    const { max_slippage_bps: mcp, ...mcpShared } = McpTradeRequest.properties;
    assert.deepEqual(mcpShared, shared);
    assert.deepEqual({ ...mcp, maximum: 1000 }, rest);
    assert.equal(mcp.maximum, 10000);
  });
});

describe('evaluate_trade\'s output', () => {
  it('declares every Verdict field as the Verdict does, except what only REST carries', () => {
    const tool = listedTools().find((listed) => listed.name === 'evaluate_trade')!;
    const [declared] = (tool.outputSchema as { anyOf: { properties: Record<string, unknown> }[] }).anyOf;
    const verdict = wireSchema(Verdict) as { properties: Record<string, unknown> };
    const { timestamp: _t, contract_risk: _c, daily_pnl_usd: _d, error: _e, ...expected } = verdict.properties;
    assert.deepEqual(declared.properties, expected);
  });
});
