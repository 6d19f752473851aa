// The bench's /proc reading: utime + stime out of a stat line, and CPU per request between two readings.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cpuUsPerRequest, statTicks } from '../../../bench/proc-stat.js';
import { nodeFlagsOf } from '../../../bench/service.js';

// A real line's shape (proc(5)): pid, (comm), state, then fields 4..52; utime 1234 and stime 567 are fields 14 and 15.
const line = (comm: string) =>
  `4242 (${comm}) S 1 4242 4242 0 -1 4194560 52101 0 0 0 1234 567 0 0 20 0 11 0 777 1210000000 30000 18446744073709551615 1 1 0 0 0 0 0 16781312 17442 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n`;

describe('statTicks', () => {
  it('adds utime and stime', () => {
    assert.equal(statTicks(line('node')), 1801);
  });

  it('finds the fields after a command name holding spaces and parentheses', () => {
    assert.equal(statTicks(line('a (b) c')), 1801);
    assert.equal(statTicks(line(') 9 9 9')), 1801);
  });

  it('refuses what is not a stat line', () => {
    assert.throws(() => statTicks('no parenthesis here'), { message: 'not a /proc stat line: no parenthesis here' });
    assert.throws(() => statTicks('1 (x) S 1 2'), { message: 'no utime and stime in: 1 (x) S 1 2' });
  });
});

describe('cpuUsPerRequest', () => {
  it('turns clock ticks over the run into microseconds per request, main thread and process apart', () => {
    const before = { mainThread: 1000, process: 1500 };
    const after = { mainThread: 1160, process: 1800 };
    // 160 ticks at 100/s = 1.6 s over 20,000 requests = 80 us; 300 ticks = 3 s = 150 us.
    assert.deepEqual(cpuUsPerRequest(before, after, 20_000, 100), { loop: 80, process: 150 });
  });

  it('gives nulls when no request completed', () => {
    assert.deepEqual(cpuUsPerRequest({ mainThread: 1, process: 1 }, { mainThread: 9, process: 9 }, 0, 100), { loop: null, process: null });
  });
});

describe('nodeFlagsOf', () => {
  it('reads the node flags of the start script', () => {
    assert.deepEqual(nodeFlagsOf('npm run build --silent && node --max-semi-space-size=32 dist/src/main.js'), ['--max-semi-space-size=32']);
    assert.deepEqual(nodeFlagsOf('node --a --b=1 dist/src/main.js'), ['--a', '--b=1']);
    assert.deepEqual(nodeFlagsOf('node dist/src/main.js'), []);
  });

  it('fails when the script does not start main.js with node', () => {
    assert.throws(() => nodeFlagsOf('tsx src/index.ts'), { message: "package.json's start script does not run node on main.js: tsx src/index.ts" });
  });
});
