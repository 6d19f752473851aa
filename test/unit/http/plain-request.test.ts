// The peer's address as the log and the rate windows name it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressText } from '../../../src/http/plain-request.js';

describe('addressText', () => {
  it("writes an address as uWS's getRemoteAddressAsText does, each address its own text however they follow each other", () => {
    const v4 = new Uint8Array([127, 0, 0, 1]);
    const other = new Uint8Array([10, 1, 2, 254]);
    const v6 = new Uint8Array([0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xab, 0x01]);
    const mapped = new Uint8Array([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1]);
    for (let round = 0; round < 2; round++) {
      assert.equal(addressText(v4), '127.0.0.1');
      assert.equal(addressText(new Uint8Array(v4)), '127.0.0.1');
      assert.equal(addressText(other), '10.1.2.254');
      assert.equal(addressText(v6), '2001:0db8:0000:0000:0000:0000:0000:ab01');
      assert.equal(addressText(mapped), '0000:0000:0000:0000:0000:ffff:7f00:0001');
      assert.equal(addressText(v4), '127.0.0.1');
    }
  });
});
