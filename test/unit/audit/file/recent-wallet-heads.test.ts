// The file log's recent wallet heads: the latest acknowledged seq and hash per wallet, the oldest wallet dropped at the cap.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RecentWalletHeads } from '../../../../src/audit/file/recent-wallet-heads.js';

describe('RecentWalletHeads', () => {
  it('answers the seq and hash of the last record acknowledged for a wallet, and nothing for a wallet never seen', () => {
    const heads = new RecentWalletHeads(4);
    heads.acknowledged('0xa', 1, 'a1');
    heads.acknowledged('0xb', 2, 'b1');
    heads.acknowledged('0xa', 3, 'a2');
    assert.deepEqual(heads.get('0xa'), [3, 'a2']);
    assert.deepEqual(heads.get('0xb'), [2, 'b1']);
    assert.equal(heads.get('0xc'), undefined);
  });

  it('drops the wallet kept longest once full, so it is read from the index again, and keeps the rest', () => {
    const heads = new RecentWalletHeads(2);
    heads.acknowledged('0xa', 1, 'a1');
    heads.acknowledged('0xb', 2, 'b1');
    heads.acknowledged('0xb', 3, 'b2');
    heads.acknowledged('0xc', 4, 'c1');
    assert.deepEqual(['0xa', '0xb', '0xc'].map((wallet) => heads.get(wallet)?.[1]), [undefined, 'b2', 'c1']);
  });
});
