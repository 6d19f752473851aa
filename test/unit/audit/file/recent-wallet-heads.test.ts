// The file log's recent wallet heads: the latest acknowledged hash per wallet, the oldest wallet dropped at the cap.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RecentWalletHeads } from '../../../../src/audit/file/recent-wallet-heads.js';

describe('RecentWalletHeads', () => {
  it('answers the hash of the last record acknowledged for a wallet, and nothing for a wallet never seen', () => {
    const heads = new RecentWalletHeads(4);
    heads.acknowledged('0xa', 'a1');
    heads.acknowledged('0xb', 'b1');
    heads.acknowledged('0xa', 'a2');
    assert.equal(heads.get('0xa'), 'a2');
    assert.equal(heads.get('0xb'), 'b1');
    assert.equal(heads.get('0xc'), undefined);
  });

  it('drops the wallet kept longest once full, so it is read from the index again, and keeps the rest', () => {
    const heads = new RecentWalletHeads(2);
    heads.acknowledged('0xa', 'a1');
    heads.acknowledged('0xb', 'b1');
    heads.acknowledged('0xb', 'b2');
    heads.acknowledged('0xc', 'c1');
    assert.deepEqual(['0xa', '0xb', '0xc'].map((wallet) => heads.get(wallet)), [undefined, 'b2', 'c1']);
  });
});
