// FastAPI-shaped validation errors from the compiled TypeBox schemas.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AuditQuery } from '../../../src/schemas/resources.js';
import { McpTradeRequest, TradeRequest } from '../../../src/schemas/trade.js';
import { compileValidator, numericParams } from '../../../src/schemas/validator.js';

const validateRest = compileValidator(TradeRequest, 'body');
const validateMcp = compileValidator(McpTradeRequest, 'body');
const validateQuery = compileValidator(AuditQuery, 'query');

const WALLET = '0x1111111111111111111111111111111111111111';
const CONTRACT = '0xa6f91334bed73452616829fac9fa646b4b2b76e0';
const PATTERN = '^0x[a-fA-F0-9]{40}$';

function trade(overrides: Record<string, unknown> = {}) {
  return { wallet: WALLET, asset: 'TSLA', contract_address: CONTRACT, side: 'buy', amount: 1, ...overrides };
}

function detail(result: { ok: true } | { ok: false; detail: unknown[] }) {
  assert.equal(result.ok, false);
  return (result.ok ? [] : result.detail) as any[];
}

describe('TradeRequest (REST)', () => {
  it('accepts a valid request and fills the defaults', () => {
    const result = validateRest(trade());
    assert.deepEqual(result, { ok: true, value: { ...trade(), max_slippage_bps: 100, allow_unregistered: false, permit: false } });
  });

  it('reports every missing field with the whole input', () => {
    assert.deepEqual(detail(validateRest({ asset: 'TSLA' })), [
      { loc: ['body', 'wallet'], msg: 'Field required', type: 'missing', input: { asset: 'TSLA' } },
      { loc: ['body', 'contract_address'], msg: 'Field required', type: 'missing', input: { asset: 'TSLA' } },
      { loc: ['body', 'side'], msg: 'Field required', type: 'missing', input: { asset: 'TSLA' } },
      { loc: ['body', 'amount'], msg: 'Field required', type: 'missing', input: { asset: 'TSLA' } },
    ]);
  });

  it('is strict about types: a numeric string is not a number, 1.5 is not an integer', () => {
    assert.deepEqual(detail(validateRest(trade({ amount: '1' }))), [
      { loc: ['body', 'amount'], msg: 'Input should be a valid number', type: 'float_type', input: '1' },
    ]);
    assert.deepEqual(detail(validateRest(trade({ max_slippage_bps: 1.5 }))), [
      {
        loc: ['body', 'max_slippage_bps'],
        msg: 'Input should be a valid integer, got a number with a fractional part',
        type: 'int_from_float',
        input: 1.5,
      },
    ]);
    assert.deepEqual(detail(validateRest(trade({ allow_unregistered: 'true' }))), [
      { loc: ['body', 'allow_unregistered'], msg: 'Input should be a valid boolean', type: 'bool_type', input: 'true' },
    ]);
  });

  it('reports bounds with ctx', () => {
    assert.deepEqual(detail(validateRest(trade({ amount: 0 }))), [
      { loc: ['body', 'amount'], msg: 'Input should be greater than 0', type: 'greater_than', input: 0, ctx: { gt: 0 } },
    ]);
    assert.deepEqual(detail(validateRest(trade({ max_slippage_bps: 1001 }))), [
      {
        loc: ['body', 'max_slippage_bps'],
        msg: 'Input should be less than or equal to 1000',
        type: 'less_than_equal',
        input: 1001,
        ctx: { le: 1000 },
      },
    ]);
    assert.deepEqual(detail(validateRest(trade({ deadline: 0 }))), [
      { loc: ['body', 'deadline'], msg: 'Input should be greater than 0', type: 'greater_than', input: 0, ctx: { gt: 0 } },
    ]);
  });

  it('accepts a null deadline and request_id', () => {
    assert.equal(validateRest(trade({ deadline: null, request_id: null })).ok, true);
  });

  it('reports one error per field, the first pydantic would', () => {
    assert.deepEqual(detail(validateRest(trade({ wallet: '0x12' }))), [
      {
        loc: ['body', 'wallet'],
        msg: 'String should have at least 42 characters',
        type: 'string_too_short',
        input: '0x12',
        ctx: { min_length: 42 },
      },
    ]);
    const zed = `0x${'z'.repeat(40)}`;
    assert.deepEqual(detail(validateRest(trade({ contract_address: zed }))), [
      {
        loc: ['body', 'contract_address'],
        msg: `String should match pattern '${PATTERN}'`,
        type: 'string_pattern_mismatch',
        input: zed,
        ctx: { pattern: PATTERN },
      },
    ]);
  });

  it('reports a literal error for side and length errors for asset', () => {
    assert.deepEqual(detail(validateRest(trade({ side: 'hold' }))), [
      {
        loc: ['body', 'side'],
        msg: "Input should be 'buy' or 'sell'",
        type: 'literal_error',
        input: 'hold',
        ctx: { expected: "'buy' or 'sell'" },
      },
    ]);
    assert.deepEqual(detail(validateRest(trade({ asset: '' }))), [
      { loc: ['body', 'asset'], msg: 'String should have at least 1 character', type: 'string_too_short', input: '', ctx: { min_length: 1 } },
    ]);
    assert.equal(detail(validateRest(trade({ asset: 'X'.repeat(33) })))[0].type, 'string_too_long');
  });

  it('counts a length in code points, as pydantic does: a character outside the BMP is one, not two', () => {
    // 32 emoji are 64 UTF-16 units and 32 characters: within asset's 32; 33 are not.
    const emoji = '\u{1F680}';
    assert.equal(validateRest(trade({ asset: emoji.repeat(32) })).ok, true);
    assert.deepEqual(detail(validateRest(trade({ asset: emoji.repeat(33) }))), [
      { loc: ['body', 'asset'], msg: 'String should have at most 32 characters', type: 'string_too_long', input: emoji.repeat(33), ctx: { max_length: 32 } },
    ]);
    // '0x', 38 digits and one emoji are 42 UTF-16 units but 41 characters: too short, whatever the pattern says.
    assert.equal(detail(validateRest(trade({ wallet: `0x${'1'.repeat(38)}${emoji}` })))[0].type, 'string_too_short');
    // A pair elsewhere in the body (an undeclared field's key) still counts the asset in characters.
    assert.equal(detail(validateRest(trade({ asset: 'A'.repeat(33), [`x${emoji}`]: 1 }))).map((issue) => issue.type).sort().join(), 'extra_forbidden,string_too_long');
  });

  it('forbids undeclared fields, naming each', () => {
    assert.deepEqual(detail(validateRest(trade({ max_slipage_bps: 5 }))), [
      { loc: ['body', 'max_slipage_bps'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input: 5 },
    ]);
  });
});

describe('TradeRequest (MCP flavor)', () => {
  it('allows slippage up to 10000 and nothing beyond the tool fields', () => {
    assert.equal(validateMcp(trade({ max_slippage_bps: 10000 })).ok, true);
    assert.equal(detail(validateMcp(trade({ max_slippage_bps: 10001 })))[0].type, 'less_than_equal');
    assert.equal(detail(validateMcp(trade({ deadline: 5 })))[0].type, 'extra_forbidden');
    assert.equal(detail(validateMcp(trade({ allow_unregistered: true })))[0].type, 'extra_forbidden');
  });
});

describe('query parameters', () => {
  it('turns numeric text into numbers and reports the rest as parsing errors', () => {
    assert.deepEqual(validateQuery(numericParams(AuditQuery, {})), { ok: true, value: { limit: 100 } });
    assert.deepEqual(validateQuery(numericParams(AuditQuery, { limit: '25' })), { ok: true, value: { limit: 25 } });
    assert.deepEqual(detail(validateQuery(numericParams(AuditQuery, { limit: 'ten' }))), [
      {
        loc: ['query', 'limit'],
        msg: 'Input should be a valid integer, unable to parse string as an integer',
        type: 'int_parsing',
        input: 'ten',
      },
    ]);
    assert.deepEqual(detail(validateQuery(numericParams(AuditQuery, { limit: '0' }))), [
      {
        loc: ['query', 'limit'],
        msg: 'Input should be greater than or equal to 1',
        type: 'greater_than_equal',
        input: 0,
        ctx: { ge: 1 },
      },
    ]);
    assert.equal(detail(validateQuery(numericParams(AuditQuery, { limit: '1001' })))[0].type, 'less_than_equal');
  });
});
