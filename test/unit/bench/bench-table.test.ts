// What `npm run bench` prints: the padded Markdown tables and the header of a run, pinned whole.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatResults, renderTable } from '../../../bench/table.js';
import { results, row } from '../../support/bench-fixtures.js';

describe('renderTable', () => {
  it('pads cells to the widest, numbers to the right', () => {
    assert.equal(renderTable(['name', 'n'], [['a', '1,000'], ['longer', '2']], [false, true]), [
      '| name   |     n |',
      '|--------|------:|',
      '| a      | 1,000 |',
      '| longer |     2 |',
    ].join('\n'));
  });
});

describe('formatResults', () => {
  it('prints the header, the scenario table and the paid table', () => {
    const run = results(
      [
        row('echo', 50_000, 1, 1.5, { label: 'uWS echo', note: 'baseline' }),
        row('offline', 10_000.4, 0.2, 8, { label: 'offline', socketErrors: 1, non2xx: 2 }),
        row('mcp', 2_500, 0.05, 30, { label: 'MCP', ratioToRest: 0.25, note: '64 sessions', loopCpuUsPerRequest: null, processCpuUsPerRequest: null }),
      ],
      { paid: { calls: 200, free: { p50Ms: 3, p99Ms: 9 }, paid: { p50Ms: 20.5, p99Ms: 49.25 } } },
    );
    assert.equal(formatResults(run), [
      'npm run bench: commit abc1234, 2026-11-23T10:00:00.000Z, node v20.20.2',
      'load generator: wrk -t1 -c64 (bench/analyze.lua), 10 s per scenario, the same for the echo and every row',
      'load average 0.50 0.25 1.00 at start, 1.50 0.75 1.13 at end',
      'CPU per request from /proc at 100 ticks/s: loop = the server\'s main thread, process = all its threads',
      '',
      '| scenario |  req/s | p50 ms | p99 ms | vs echo | loop CPU us/req | process CPU us/req | errors | note                               |',
      '|----------|-------:|-------:|-------:|--------:|----------------:|-------------------:|-------:|------------------------------------|',
      '| uWS echo | 50,000 |   0.75 |   1.50 |   1.000 |            80.0 |              120.3 |      0 | baseline                           |',
      '| offline  | 10,000 |   4.00 |   8.00 |   0.200 |            80.0 |              120.3 |      3 |                                    |',
      '| MCP      |  2,500 |  15.00 |  30.00 |   0.050 |               - |                  - |      0 | 0.250 of offline REST; 64 sessions |',
      '',
      'x402 on the devnet: 200 calls on each path, one at a time, a new wallet each',
      '| one call at a time             | p50 ms | p99 ms |',
      '|--------------------------------|-------:|-------:|',
      '| analyze/free                   |   3.00 |   9.00 |',
      '| x402/analyze (verify + settle) |  20.50 |  49.25 |',
      '| added by paying                |  17.50 |  40.25 |',
      '',
    ].join('\n'));
  });
});
