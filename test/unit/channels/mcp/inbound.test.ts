// The MCP endpoint reads a body's text as the SDK's TextDecoder does: a leading byte order mark dropped, bad bytes replaced.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { bodyText } from '../../../../src/channels/mcp/inbound.js';

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
