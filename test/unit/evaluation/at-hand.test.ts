// allAtHand: facts held in this process are taken as they are; any still being read are awaited together.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allAtHand } from '../../../src/evaluation/at-hand.js';

describe('allAtHand', () => {
  it('gives back the values themselves, not a promise, when none is pending', () => {
    const values = [1, 'two', null, { three: 3 }] as const;
    const taken = allAtHand(values);
    assert.ok(Array.isArray(taken));
    assert.equal(taken, values);
  });

  it('awaits every value together as soon as one is pending, in order', async () => {
    const taken = allAtHand([1, Promise.resolve('two'), { then: (resolve: (v: number) => void) => resolve(3) }] as const);
    assert.ok(!Array.isArray(taken));
    assert.deepEqual(await taken, [1, 'two', 3]);
  });

  it('rejects with the first failure of a pending value', async () => {
    const taken = allAtHand([1, Promise.reject(new Error('node down'))] as const);
    assert.ok(!Array.isArray(taken));
    await assert.rejects(taken, /node down/);
  });
});
