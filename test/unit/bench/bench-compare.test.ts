// `npm run bench -- --compare old.json`: the change column and the comparison table, pinned whole.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { change, formatComparison } from '../../../bench/compare.js';
import { results, row } from '../../support/bench-fixtures.js';

describe('change', () => {
  it('gives the signed relative change, and "-" when there is no base', () => {
    assert.equal(change(100, 103.25), '+3.3%');
    assert.equal(change(200, 150), '-25.0%');
    assert.equal(change(5, 5), '+0.0%');
    assert.equal(change(0, 5), '-');
    assert.equal(change(Number.NaN, 5), '-');
  });
});

describe('formatComparison', () => {
  const before = results([row('echo', 50_000, 1, 2), row('fleet', 5_000, 0.1, 60), row('gone', 10, 0.001, 1)]);
  const after = results([row('echo', 40_000, 1, 2.5), row('fleet', 6_000, 0.15, 45), row('mcp', 2_000, 0.05, 30)], {
    commit: 'def5678+dirty', generator: 'autocannon', generatorLabel: 'autocannon -c64 (wrk not installed)',
  });

  it('matches scenarios by id, this run\'s first, and warns when the generators differ', () => {
    assert.equal(formatComparison(before, 'old.json', after), [
      'compared with old.json: commit abc1234, 2026-11-23T10:00:00.000Z, wrk -t1 -c64 (bench/analyze.lua), 10 s per scenario',
      'the load generators differ (wrk -t1 -c64 (bench/analyze.lua) then autocannon -c64 (wrk not installed)): compare the ratios, not req/s or latency',
      '',
      '| scenario | req/s old | req/s new | change | vs echo old | vs echo new | change | p99 ms old | p99 ms new | change |',
      '|----------|----------:|----------:|-------:|------------:|------------:|-------:|-----------:|-----------:|-------:|',
      '| echo     |    50,000 |    40,000 | -20.0% |       1.000 |       1.000 |  +0.0% |       2.00 |       2.50 | +25.0% |',
      '| fleet    |     5,000 |     6,000 | +20.0% |       0.100 |       0.150 | +50.0% |      60.00 |      45.00 | -25.0% |',
      '| mcp      |         - |     2,000 |    new |           - |       0.050 |    new |          - |      30.00 |    new |',
      '| gone     |        10 |         - |   gone |       0.001 |           - |   gone |       1.00 |          - |   gone |',
      '',
    ].join('\n'));
  });

  it('says nothing of generators when both runs used the same', () => {
    assert.equal(formatComparison(before, 'old.json', before).split('\n')[1], '');
  });

  it('names the earlier run\'s warm-up, and warns when the two runs warmed up differently', () => {
    const warmed = { ...before, warmSeconds: 5 };
    const lines = formatComparison(before, 'old.json', warmed).split('\n');
    assert.equal(lines[1], 'the warm-ups differ (warm-up requests only then 5 s of warm-up load): part of any change is the warm-up\'s, not the code\'s');
    const same = formatComparison(warmed, 'old.json', warmed).split('\n');
    assert.match(same[0], /10 s per scenario, each after 5 s of warm-up load$/);
    assert.equal(same[1], '');
  });
});
