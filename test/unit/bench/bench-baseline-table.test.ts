// `npm run bench -- --baseline <ref>`: the medians of each side's rounds and the side-by-side table, pinned whole.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { baselineTable, formatBaseline, median, type Side } from '../../../bench/baseline-table.js';
import { cpu, results, row } from '../../support/bench-fixtures.js';

describe('median', () => {
  it('takes the middle of an odd count and the mean of the middle two of an even one, in any order', () => {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([40, 10, 30, 20]), 25);
    assert.equal(median([7]), 7);
  });

  it('leaves out what was not measured, and has none without a number', () => {
    assert.equal(median([null, 5, undefined, 9, Number.NaN]), 7);
    assert.equal(median([null, undefined]), null);
    assert.equal(median([]), null);
  });
});

describe('baselineTable', () => {
  const echo = row('echo', 100_000, 1, 1);
  const offline = (requestsPerSecond: number, p99Ms: number, loop: number, process: number) =>
    row('offline', requestsPerSecond, requestsPerSecond / 100_000, p99Ms, { label: 'offline registry', cpuUsPerRequest: cpu({ loop, process, anvil: null }) });
  const before: Side = {
    commit: 'fe3baab',
    runs: [
      results([echo, offline(20_000, 5, 44, 60)], { commit: 'fe3baab' }),
      results([echo, offline(21_000, 5.5, 40, 58)], { commit: 'fe3baab' }),
      results([echo, offline(19_000, 6, 48, 62)], { commit: 'fe3baab' }),
    ],
  };
  const after: Side = {
    commit: 'abc1234',
    runs: [results([echo, offline(30_000, 3, 20, 30)]), results([echo, offline(40_000, 2.5, 22, 25)]), results([echo, offline(35_000, 4, 24, 35)])],
  };

  it('prints per scenario each measure\'s median on both sides and its change, leaving out what neither measured', () => {
    assert.equal(baselineTable(before, after), [
      '| scenario         | median of      | fe3baab (baseline) | abc1234 | change |',
      '|------------------|----------------|-------------------:|--------:|-------:|',
      '| offline registry | req/s          |             20,000 |  35,000 | +75.0% |',
      '|                  | vs echo        |              0.200 |   0.350 | +75.0% |',
      '|                  | p99 ms         |               5.50 |    3.00 | -45.5% |',
      '|                  | loop us/req    |               44.0 |    22.0 | -50.0% |',
      '|                  | pool us/req    |               15.5 |    15.5 |  +0.0% |',
      '|                  | index us/req   |                2.0 |     2.0 |  +0.0% |',
      '|                  | tree us/req    |                1.0 |     1.0 |  +0.0% |',
      '|                  | others us/req  |               21.8 |    21.8 |  +0.0% |',
      '|                  | process us/req |               60.0 |    30.0 | -50.0% |',
    ].join('\n'));
  });

  it('shows a scenario only one side ran, and the paid channel, with "-" where a side has nothing', () => {
    const paid = { calls: 200, free: { p50Ms: 3, p99Ms: 9 }, paid: { p50Ms: 20, p99Ms: 40 } };
    const fresh = row('fresh', 8_000, 0.08, 26, { label: 'devnet, a new wallet every request' });
    const newer: Side = { commit: 'abc1234', runs: [results([echo, fresh], { paid })] };
    const older: Side = { commit: 'fe3baab', runs: [results([echo], { paid: { ...paid, paid: { p50Ms: 25, p99Ms: 50 } } })] };
    assert.equal(baselineTable(older, newer), [
      '| scenario                           | median of               | fe3baab (baseline) | abc1234 | change |',
      '|------------------------------------|-------------------------|-------------------:|--------:|-------:|',
      '| devnet, a new wallet every request | req/s                   |                  - |   8,000 |      - |',
      '|                                    | vs echo                 |                  - |   0.080 |      - |',
      '|                                    | p99 ms                  |                  - |   26.00 |      - |',
      '|                                    | loop us/req             |                  - |    80.0 |      - |',
      '|                                    | pool us/req             |                  - |    15.5 |      - |',
      '|                                    | index us/req            |                  - |     2.0 |      - |',
      '|                                    | tree us/req             |                  - |     1.0 |      - |',
      '|                                    | others us/req           |                  - |    21.8 |      - |',
      '|                                    | process us/req          |                  - |   120.3 |      - |',
      '|                                    | anvil us/req            |                  - |    40.0 |      - |',
      '| x402, one call at a time           | x402 p50 ms             |              25.00 |   20.00 | -20.0% |',
      '|                                    | x402 p99 ms             |              50.00 |   40.00 | -20.0% |',
      '|                                    | added by paying, p50 ms |              22.00 |   17.00 | -22.7% |',
    ].join('\n'));
  });

  it('reads the rounds of a file written before the split by thread, whose rows have no CPU by thread', () => {
    const old = { ...offline(20_000, 5, 44, 60), cpuUsPerRequest: undefined } as unknown as ReturnType<typeof row>;
    const table = baselineTable({ commit: 'fe3baab', runs: [results([echo, old])] }, after);
    assert.match(table, /\| {18}\| loop us\/req {4}\| {18}- \| {4}22\.0 \| {6}- \|/);
  });
});

describe('formatBaseline', () => {
  it('names both commits, the rounds, the generator and the echo above the table', () => {
    const side = (commit: string, rps: number): Side => ({ commit, runs: [results([row('echo', rps, 1, 1)], { commit })] });
    assert.equal(formatBaseline('HEAD~1', side('fe3baab', 90_000), side('abc1234', 90_000)).split('\n').slice(0, 7).join('\n'), [
      'npm run bench --baseline HEAD~1: fe3baab (baseline) against abc1234, 2026-11-23T10:00:00.000Z, node v20.20.2',
      '1 round, the baseline first in the odd-numbered ones and abc1234 first in the others, with one echo per round for both; medians of the rounds',
      'load generator: wrk -t1 -c64 (bench/analyze.lua), 10 s per scenario; uWS echo median 90,000 req/s',
      'CPU: us per request over the timed run, from /proc at 100 ticks/s;',
      "loop = main thread (event loop), pool = scoring threads, index = audit index thread, tree = Merkle tree thread, others = every other thread (libuv, V8), process = all threads; anvil = the devnet's anvil process, not in process",
      'change: from the baseline to this checkout, in percent of the baseline',
      '',
    ].join('\n'));
  });
});
