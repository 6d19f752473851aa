// A tool result's JSON written from its text content is JSON.stringify's, byte for byte.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { failure, result, resultJson } from '../../../../src/channels/mcp/tool-results.js';

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

  it('writes any other result with JSON.stringify', () => {
    const other: CallToolResult = { content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { a: 2 } };
    assert.equal(resultJson(other), JSON.stringify(other));
    const extended = { ...result({ a: 1 }), _meta: { x: 1 } };
    assert.equal(resultJson(extended), JSON.stringify(extended));
  });
});
