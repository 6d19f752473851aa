// The bench's /proc reading: utime + stime and the parent out of a stat line, and CPU per request by thread between two readings.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cpuUsPerRequest, statParent, statTicks, type CpuSample } from '../../../bench/proc-stat.js';
import { startCommandOf } from '../../../bench/service.js';
import type { ThreadKind } from '../../../bench/threads.js';

// A real line's shape (proc(5)): pid, (comm), state, then fields 4..52; ppid 1, utime 1234 and stime 567 are fields 4, 14 and 15.
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

describe('statParent', () => {
  it('reads the command name and the parent pid', () => {
    assert.deepEqual(statParent(line('anvil')), { comm: 'anvil', ppid: 1 });
    assert.deepEqual(statParent(line('a (b) c')), { comm: 'a (b) c', ppid: 1 });
  });
});

describe('cpuUsPerRequest', () => {
  // pid 10 is the main thread; 11 and 12 the scoring pool, 13 the index, 14 the tree; 15 (libuv) is known to no kind.
  const kinds = new Map<number, ThreadKind>([[10, 'loop'], [11, 'pool'], [12, 'pool'], [13, 'index'], [14, 'tree']]);
  const sample = (process: number, threads: [number, number][], companion: number | null): CpuSample => ({ process, threads: new Map(threads), companion });

  it('splits ticks over the run by thread kind, others being the rest of the process, anvil beside it', () => {
    const before = sample(1_000, [[10, 500], [11, 100], [12, 100], [13, 50], [14, 20]], 300);
    const after = sample(1_400, [[10, 660], [11, 130], [12, 140], [13, 60], [14, 25]], 380);
    // At 100 ticks/s over 20,000 requests one tick is 0.5 us: loop 160 ticks, pool 30 + 40, index 10, tree 5,
    // process 400, others 400 - 245 = 155, anvil 80.
    assert.deepEqual(cpuUsPerRequest(before, after, kinds, 20_000, 100), {
      loop: 80, pool: 35, index: 5, tree: 2.5, others: 77.5, process: 200, anvil: 40,
    });
  });

  it('counts a thread that started or ended during the run in others, and a kind without a thread as null', () => {
    const before = sample(1_000, [[10, 500], [11, 100]], null);
    const after = sample(1_100, [[10, 540], [12, 30]], null);
    assert.deepEqual(cpuUsPerRequest(before, after, kinds, 1_000, 100), {
      loop: 400, pool: null, index: null, tree: null, others: 600, process: 1_000, anvil: null,
    });
  });

  it('holds others at 0 when the threads add up to a tick above the process', () => {
    const cpu = cpuUsPerRequest(sample(100, [[10, 50], [11, 50]], null), sample(110, [[10, 56], [11, 55]], null), kinds, 100, 100);
    assert.equal(cpu.others, 0);
  });

  it('gives nulls when no request completed', () => {
    const idle = sample(1, [[10, 1]], 1);
    assert.deepEqual(cpuUsPerRequest(idle, idle, kinds, 0, 100), { loop: null, pool: null, index: null, tree: null, others: null, process: null, anvil: null });
  });
});

describe('startCommandOf', () => {
  it('reads the node flags and the entry file of the start script', () => {
    assert.deepEqual(startCommandOf('exec node --max-semi-space-size=32 dist/service.js'), { flags: ['--max-semi-space-size=32'], entry: 'dist/service.js' });
    assert.deepEqual(startCommandOf('npm run build --silent && node --max-semi-space-size=32 dist/src/main.js'), { flags: ['--max-semi-space-size=32'], entry: 'dist/src/main.js' });
    assert.deepEqual(startCommandOf('node --a --b=1 dist/src/main.js'), { flags: ['--a', '--b=1'], entry: 'dist/src/main.js' });
    assert.deepEqual(startCommandOf('node dist/service.js'), { flags: [], entry: 'dist/service.js' });
  });

  it('fails when the script does not start a .js file with node', () => {
    assert.throws(() => startCommandOf('tsx src/index.ts'), { message: "package.json's start script does not run node on a .js file: tsx src/index.ts" });
  });
});
