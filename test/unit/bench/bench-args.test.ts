// `npm run bench` arguments: --compare and --only, and the messages for what they refuse.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseBenchArgs, SELECTABLE, USAGE } from '../../../bench/args.js';

describe('parseBenchArgs', () => {
  it('runs every scenario and compares with nothing by default', () => {
    assert.deepEqual(parseBenchArgs([]), { compare: null, only: new Set(SELECTABLE) });
  });

  it('takes --compare and --only with a space or an equals sign', () => {
    assert.deepEqual(parseBenchArgs(['--compare', 'old.json', '--only', 'fleet, fresh']), { compare: 'old.json', only: new Set(['fleet', 'fresh']) });
    assert.deepEqual(parseBenchArgs(['--compare=a=b.json', '--only=mcp']), { compare: 'a=b.json', only: new Set(['mcp']) });
  });

  it('refuses unknown arguments, missing values and unknown scenarios', () => {
    assert.throws(() => parseBenchArgs(['--fast']), { message: `unknown argument --fast\n${USAGE}` });
    assert.throws(() => parseBenchArgs(['--compare']), { message: `--compare needs a value\n${USAGE}` });
    assert.throws(() => parseBenchArgs(['--compare', '--only', 'fleet']), { message: `--compare needs a value\n${USAGE}` });
    assert.throws(() => parseBenchArgs(['--only', 'fleet,echo']), {
      message: '--only takes scenarios among fleet, fresh, bearer, paid, offline, mcp (the echo always runs); not echo',
    });
    assert.throws(() => parseBenchArgs(['--only', ',']), {
      message: '--only takes scenarios among fleet, fresh, bearer, paid, offline, mcp (the echo always runs); not an empty list',
    });
  });
});
