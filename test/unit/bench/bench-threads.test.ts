// Which thread is which: the lines bench/thread-labels.cts writes, joined into thread kinds.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { kindOfFile, threadKinds } from '../../../bench/threads.js';

describe('kindOfFile', () => {
  it('knows the scoring, index and tree workers by their file, in any checkout', () => {
    assert.equal(kindOfFile('/tmp/bench-baseline-abc/dist/workers/score.js'), 'pool');
    assert.equal(kindOfFile('/work/x/dist/workers/audit-index.js'), 'index');
    assert.equal(kindOfFile('/work/x/dist/workers/merkle-tree.js'), 'tree');
  });

  it('leaves any other worker to others', () => {
    assert.equal(kindOfFile('/work/x/dist/workers/verify.js'), null);
    assert.equal(kindOfFile('/work/x/node_modules/piscina/dist/worker.js'), null);
    assert.equal(kindOfFile('/work/x/dist/workers/score.js.map'), null);
    assert.equal(kindOfFile(''), null);
  });
});

describe('threadKinds', () => {
  it('joins the main thread\'s notes (a Piscina task file replacing piscina\'s own) with each worker\'s tid', () => {
    const lines = [
      '{"threadId":1,"file":"/w/node_modules/piscina/dist/worker.js"}',
      '{"threadId":1,"tid":501}',
      '{"threadId":1,"file":"/w/dist/workers/score.js"}',
      '{"threadId":2,"file":"/w/dist/workers/audit-index.js"}',
      '{"threadId":3,"tid":503}',
      '{"threadId":2,"tid":502}',
      '{"threadId":3,"file":"/w/dist/workers/merkle-tree.js"}',
      '{"threadId":4,"file":"/w/dist/workers/verify.js"}',
      '{"threadId":4,"tid":504}',
      '{"threadId":5,"tid":505}',
      '{"threadId":6,"fi',
    ];
    assert.deepEqual(threadKinds(lines.join('\n'), 500), new Map([[500, 'loop'], [501, 'pool'], [503, 'tree'], [502, 'index']]));
  });

  it('knows only the main thread without notes', () => {
    assert.deepEqual(threadKinds('', 77), new Map([[77, 'loop']]));
  });
});
