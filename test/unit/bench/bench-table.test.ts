// What `npm run bench` prints: the padded Markdown tables and the header of a run, pinned whole.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatResults, renderTable } from '../../../bench/table.js';
import { cpu, results, row } from '../../support/bench-fixtures.js';

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
  it('prints the header, the scenario table with CPU by thread and anvil, and the paid table', () => {
    const run = results(
      [
        row('echo', 50_000, 1, 1.5, { label: 'uWS echo', note: 'baseline', cpuUsPerRequest: cpu({ loop: 8.2, pool: null, index: null, tree: null, others: 0.3, process: 8.5, anvil: null }) }),
        row('fresh', 8_200, 0.164, 26.6, { label: 'fresh', note: 'new wallets' }),
        row('offline', 10_000.4, 0.2, 8, { label: 'offline', socketErrors: 1, non2xx: 2, cpuUsPerRequest: cpu({ anvil: null }) }),
        row('mcp', 2_500, 0.05, 30, { label: 'MCP', ratioToRest: 0.25, note: '64 sessions', cpuUsPerRequest: cpu({ loop: null, process: null, anvil: null }) }),
      ],
      { paid: { calls: 200, free: { p50Ms: 3, p99Ms: 9 }, paid: { p50Ms: 20.5, p99Ms: 49.25 } } },
    );
    assert.equal(formatResults(run), [
      'npm run bench: commit abc1234, 2026-11-23T10:00:00.000Z, node v20.20.2',
      'load generator: wrk -t1 -c64 (bench/analyze.lua), 10 s per scenario, the same for the echo and every row',
      'load average 0.50 0.25 1.00 at start, 1.50 0.75 1.13 at end',
      'CPU columns: us per request over the timed run, from /proc at 100 ticks/s;',
      "loop = main thread (event loop), pool = scoring threads, index = audit index thread, tree = Merkle tree thread, others = every other thread (libuv, V8), process = all threads; anvil = the devnet's anvil process, not in process",
      '',
      '| scenario |  req/s | p50 ms | p99 ms | vs echo | loop | pool | index | tree | others | process | anvil | errors | note                               |',
      '|----------|-------:|-------:|-------:|--------:|-----:|-----:|------:|-----:|-------:|--------:|------:|-------:|------------------------------------|',
      '| uWS echo | 50,000 |   0.75 |   1.50 |   1.000 |  8.2 |    - |     - |    - |    0.3 |     8.5 |     - |      0 | baseline                           |',
      '| fresh    |  8,200 |  13.30 |  26.60 |   0.164 | 80.0 | 15.5 |   2.0 |  1.0 |   21.8 |   120.3 |  40.0 |      0 | new wallets                        |',
      '| offline  | 10,000 |   4.00 |   8.00 |   0.200 | 80.0 | 15.5 |   2.0 |  1.0 |   21.8 |   120.3 |     - |      3 |                                    |',
      '| MCP      |  2,500 |  15.00 |  30.00 |   0.050 |    - | 15.5 |   2.0 |  1.0 |   21.8 |       - |     - |      0 | 0.250 of offline REST; 64 sessions |',
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

  it('names the warm-up load a run recorded, and says nothing of it for a file from before', () => {
    const echo = row('echo', 50_000, 1, 1.5, { label: 'uWS echo' });
    const header = (extra: Parameters<typeof results>[1]) => formatResults(results([echo], extra)).split('\n')[1];
    assert.equal(header({ warmSeconds: 5 }), 'load generator: wrk -t1 -c64 (bench/analyze.lua), 10 s per scenario, each after 5 s of warm-up load, the same for the echo and every row');
    assert.equal(header({}), 'load generator: wrk -t1 -c64 (bench/analyze.lua), 10 s per scenario, the same for the echo and every row');
  });
});
