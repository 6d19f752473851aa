// A per-block cache answers a head by its number and its hash: a block at the same height after a reorg is another block.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Hex } from 'viem';
import { PerBlockCache } from '../../../../src/facts/chain/block-caches.js';
import type { Head } from '../../../../src/facts/chain/chain-head.js';

const head = (number: bigint, hash: Hex): Head => ({ number, hash, timestamp: 0n });

describe('PerBlockCache', () => {
  it('reads again for a block at the height of one that left the chain, and keeps sharing one read per block', async () => {
    const cache = new PerBlockCache<string>();
    const reverted = head(12n, '0x01');
    const replacement = head(12n, '0x02');
    assert.equal(await cache.get('TSLA', reverted, async (at) => `price at ${at.hash}`), 'price at 0x01');
    assert.equal(await cache.get('TSLA', reverted, async () => 'read twice'), 'price at 0x01');
    assert.equal(cache.peek('TSLA', replacement), undefined);
    assert.equal(await cache.get('TSLA', replacement, async (at) => `price at ${at.hash}`), 'price at 0x02');
    assert.deepEqual(cache.peek('TSLA', replacement), { value: 'price at 0x02' });
  });
});
