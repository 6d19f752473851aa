// The MCP endpoint reads a body's text as the SDK's TextDecoder does: a leading byte order mark dropped, bad bytes replaced.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { bodyText, plainRequest } from '../../../../src/channels/mcp/inbound.js';

const SDK = new TextDecoder();
const BOM = [0xef, 0xbb, 0xbf];

describe('bodyText', () => {
  it('gives the text TextDecoder gives, for any bytes, with or without a byte order mark', () => {
    // Raw bytes (mostly not UTF-8) and the UTF-8 of any text, surrogates and all.
    const bytes = fc.oneof(fc.uint8Array({ maxLength: 64 }), fc.string({ unit: 'binary', maxLength: 32 }).map((text) => new Uint8Array(Buffer.from(text))));
    fc.assert(fc.property(bytes, fc.boolean(), (body, marked) => {
      const buffer = Buffer.from(marked ? [...BOM, ...body] : body);
      assert.equal(bodyText(buffer), SDK.decode(buffer));
    }), { numRuns: 5000 });
  });

  it('drops one mark, not two, and reads no body as empty text', () => {
    assert.equal(bodyText(Buffer.from([...BOM, ...BOM, 0x41])), '\ufeffA');
    assert.equal(bodyText(null), '');
  });
});

describe('plainRequest', () => {
  const id = fc.oneof(fc.string(), fc.integer(), fc.double(), fc.constant(null), fc.boolean());
  const params = fc.oneof(fc.dictionary(fc.constantFrom('name', 'arguments', '_meta', 'task', 'x'), fc.jsonValue()), fc.jsonValue());
  const member = fc.constantFrom('jsonrpc', 'id', 'method', 'params', 'result', 'error', 'extra');
  const message = fc.oneof(
    fc.record({ jsonrpc: fc.constantFrom('2.0', '1.0'), id, method: fc.oneof(fc.string(), fc.integer()), params }, { requiredKeys: ['jsonrpc', 'method'] }),
    fc.dictionary(member, fc.jsonValue()),
    fc.jsonValue(),
  );

  it('takes only messages the SDK schema accepts, and the schema\'s copy of each is the message itself', () => {
    fc.assert(fc.property(message, (value) => {
      if (!plainRequest(value)) return;
      const parsed = JSONRPCMessageSchema.safeParse(value);
      assert.ok(parsed.success, JSON.stringify(value));
      assert.equal(JSON.stringify(parsed.data), JSON.stringify(value));
    }), { numRuns: 20_000 });
  });

  it('takes a tools/call as clients send it, and leaves a request with _meta, an odd id or an extra member to the schema', () => {
    const call = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'evaluate_trade', arguments: { wallet: '0x1' } } };
    assert.equal(plainRequest(call), true);
    assert.equal(plainRequest({ ...call, id: 'a' }), true);
    assert.equal(plainRequest({ jsonrpc: '2.0', id: 1, method: 'ping' }), true);
    assert.equal(plainRequest({ ...call, params: { ...call.params, _meta: { progressToken: 1 } } }), false);
    assert.equal(plainRequest({ ...call, id: 1.5 }), false);
    assert.equal(plainRequest({ ...call, id: null }), false);
    assert.equal(plainRequest({ ...call, extra: 1 }), false);
    assert.equal(plainRequest({ ...call, params: [] }), false);
    assert.equal(plainRequest({ ...call, jsonrpc: '1.0' }), false);
  });
});
