// What a caller of ReadAfterArrival gets was read after it asked, and a burst of callers shares one read.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ReadAfterArrival } from '../../../../src/facts/chain/read-after-arrival.js';

/** A read per call, answered when the test says: each read's number is the order it was sent in. */
function controlledReads() {
  const sent: { resolve: (value: number) => void; reject: (error: Error) => void }[] = [];
  const reads = new ReadAfterArrival(() => new Promise<number>((resolve, reject) => sent.push({ resolve, reject })));
  return { reads, sent, answer: (i: number) => sent[i].resolve(i) };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('ReadAfterArrival', () => {
  it('sends one read, after their turn, for the callers of a turn with none out, and answers them all with it', async () => {
    const { reads, sent, answer } = controlledReads();
    const first = [reads.next(), reads.next()];
    assert.equal(sent.length, 0, 'not sent before the turn ends: a caller later in it must not arrive after the read');
    await turn();
    assert.equal(sent.length, 1);
    answer(0);
    assert.deepEqual(await Promise.all(first), [0, 0]);
  });

  it('makes a caller that arrives while a read is out wait for the next read, shared by every caller arriving meanwhile', async () => {
    const { reads, sent, answer } = controlledReads();
    const early = reads.next();
    await turn();
    // The read out was sent before these callers arrived, so they get the read after it.
    const late = [reads.next(), reads.next()];
    await turn();
    const later = reads.next();
    assert.equal(sent.length, 1, 'no second read while one is out');
    answer(0);
    assert.equal(await early, 0);
    await turn();
    assert.equal(sent.length, 2, 'the queued read is sent once the one out settles');
    answer(1);
    assert.deepEqual(await Promise.all([...late, later]), [1, 1, 1]);
    assert.equal(sent.length, 2);
  });

  it('sends the queued read after a read that failed, and rejects only the callers of the failed one', async () => {
    const { reads, sent, answer } = controlledReads();
    const failed = reads.next();
    await turn();
    const queued = reads.next();
    sent[0].reject(new Error('the node did not answer'));
    await assert.rejects(failed, /the node did not answer/);
    await turn();
    answer(1);
    assert.equal(await queued, 1);
    // Nothing out now: the next caller sends a read of its own.
    await queued;
    const alone = reads.next();
    await turn();
    assert.equal(sent.length, 3);
    answer(2);
    assert.equal(await alone, 2);
  });
});
