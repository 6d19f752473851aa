// `npm run bench` arguments: --compare, --only, --baseline and --runs, and the messages for what they refuse.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseBenchArgs, SELECTABLE, USAGE } from '../../../bench/args.js';

describe('parseBenchArgs', () => {
  it('runs every scenario and compares with nothing by default', () => {
    assert.deepEqual(parseBenchArgs([]), { compare: null, only: new Set(SELECTABLE), baseline: null, runs: 3 });
  });

  it('takes --compare and --only with a space or an equals sign', () => {
    assert.deepEqual(parseBenchArgs(['--compare', 'old.json', '--only', 'fleet, fresh']), { compare: 'old.json', only: new Set(['fleet', 'fresh']), baseline: null, runs: 3 });
    assert.deepEqual(parseBenchArgs(['--compare=a=b.json', '--only=mcp']), { compare: 'a=b.json', only: new Set(['mcp']), baseline: null, runs: 3 });
    assert.deepEqual(parseBenchArgs(['--only', 'cluster']).only, new Set(['cluster']));
  });

  it('takes a baseline ref, three rounds unless --runs says', () => {
    assert.deepEqual(parseBenchArgs(['--baseline', 'HEAD~1', '--only', 'offline']), { compare: null, only: new Set(['offline']), baseline: 'HEAD~1', runs: 3 });
    assert.deepEqual(parseBenchArgs(['--runs=1', '--baseline=fe3baab']), { compare: null, only: new Set(SELECTABLE), baseline: 'fe3baab', runs: 1 });
  });

  it('refuses --runs that is not a count or comes without --baseline, and --compare beside --baseline', () => {
    assert.throws(() => parseBenchArgs(['--baseline', 'main', '--runs', '0']), { message: '--runs takes a whole number of at least 1, not 0' });
    assert.throws(() => parseBenchArgs(['--baseline', 'main', '--runs', '2.5']), { message: '--runs takes a whole number of at least 1, not 2.5' });
    assert.throws(() => parseBenchArgs(['--baseline']), { message: `--baseline needs a value\n${USAGE}` });
    assert.throws(() => parseBenchArgs(['--runs', '2']), { message: `--runs counts the rounds of a --baseline comparison; give --baseline too\n${USAGE}` });
    assert.throws(() => parseBenchArgs(['--baseline', 'main', '--compare', 'old.json']), {
      message: `--compare and --baseline do not go together: --baseline runs both sides itself\n${USAGE}`,
    });
  });

  it('refuses unknown arguments, missing values and unknown scenarios', () => {
    assert.throws(() => parseBenchArgs(['--fast']), { message: `unknown argument --fast\n${USAGE}` });
    assert.throws(() => parseBenchArgs(['--compare']), { message: `--compare needs a value\n${USAGE}` });
    assert.throws(() => parseBenchArgs(['--compare', '--only', 'fleet']), { message: `--compare needs a value\n${USAGE}` });
    assert.throws(() => parseBenchArgs(['--only', 'fleet,echo']), {
      message: '--only takes scenarios among fleet, fresh, bearer, paid, offline, edge, mcp, long, cluster (the echo always runs); not echo',
    });
    assert.throws(() => parseBenchArgs(['--only', ',']), {
      message: '--only takes scenarios among fleet, fresh, bearer, paid, offline, edge, mcp, long, cluster (the echo always runs); not an empty list',
    });
  });
});
