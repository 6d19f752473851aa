// The request log's bound: a reader that stops reading makes lines drop, counted, instead of piling up in memory.
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { fileURLToPath } from 'node:url';

const SERVICE_LOG = fileURLToPath(new URL('../../../src/observability/service-log.js', import.meta.url));

/**
 * In a process of its own: 20,000 request lines and an event through `serviceLog(fd)`, and then
 * how many were dropped, on stdout; then the process exits.
 */
const WRITER = `
  import { constants, openSync, writeSync } from 'node:fs';
  const { serviceLog } = await import(process.argv[1]);
  const target = process.argv[2];
  const logs = target === 'stderr' ? serviceLog() : serviceLog(openSync(target, constants.O_RDWR | constants.O_NONBLOCK));
  const line = { route: '/api/v1/analyze/free', method: 'POST', status: 200, ms: 1.5, requestId: 'x-1', ip: '127.0.0.1' };
  for (let i = 0; i < 20000; i += 1) logs.request(line);
  logs.line('after the requests');
  writeSync(1, String(logs.dropped()));
  process.exit(0);
`;

interface WriterRun { status: number | null; dropped: number }

/** The writer's outcome once it exits; its stderr is a pipe nobody reads. */
function runWriter(target: string): Promise<WriterRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', WRITER, SERVICE_LOG, target], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stderr.pause();
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
    const deadline = setTimeout(() => { child.kill('SIGKILL'); reject(new Error('the writer did not exit within 20 s')); }, 20_000);
    child.on('exit', (status) => {
      clearTimeout(deadline);
      resolve({ status, dropped: Number(stdout) });
    });
  });
}

describe('serviceLog', () => {
  // About 150 bytes a line: 1 MiB keeps some 7,000 of them, the rest are dropped; the writes and the exit wait on nobody.
  it('drops and counts request lines once 1 MiB waits on a FIFO nobody reads, and still exits', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'service-log-'));
    try {
      const fifo = join(dir, 'stderr');
      execFileSync('mkfifo', [fifo]);
      const run = await runWriter(fifo);
      assert.equal(run.status, 0);
      assert.ok(run.dropped > 5_000 && run.dropped < 20_000, `${run.dropped} of 20,001 lines dropped`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('does the same on its own stderr when the parent process does not read it', async () => {
    const run = await runWriter('stderr');
    assert.equal(run.status, 0);
    assert.ok(run.dropped > 5_000 && run.dropped < 20_000, `${run.dropped} of 20,001 lines dropped`);
  });
});

describe('serviceLog at a crash', () => {
  it('writes the request lines it was gathering when an uncaught exception ends the process', () => {
    const crasher = `
      const { serviceLog } = await import(process.argv[1]);
      const logs = serviceLog(2);
      for (let i = 0; i < 3; i += 1) logs.request({ route: '/api/v1/analyze/free', method: 'POST', status: 200, ms: 1, requestId: 'before-crash-' + i, ip: '127.0.0.1' });
      setImmediate(() => { throw new Error('crash'); });
    `;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', crasher, SERVICE_LOG], { timeout: 20_000 });
    assert.notEqual(child.status, 0, 'the process died of its exception');
    const written = child.stderr.toString();
    for (let i = 0; i < 3; i += 1) assert.match(written, new RegExp(`"req_id":"before-crash-${i}"`));
  });
});

describe('serviceLog order', () => {
  it('keeps request lines and events in the order they came, and writes all of them on flush', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'service-log-'));
    try {
      const path = join(dir, 'stderr');
      const { serviceLog } = await import(SERVICE_LOG);
      const logs = serviceLog(openSync(path, 'w'));
      const request = (requestId: string, status = 200) => ({ route: '/api/v1/analyze/free', method: 'POST', status, ms: 1, requestId, ip: '127.0.0.1' });
      logs.request(request('r1'));
      logs.request(request('r2'));
      logs.line('an event');
      logs.request(request('r3', 503));
      for (let i = 0; i < 300; i++) logs.request(request(`bulk-${i}`));
      logs.request(request('last'));
      logs.flush();
      const lines = readFileSync(path, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { req_id?: string; msg: string; level: string });
      const named = lines.map((line) => line.req_id ?? line.msg);
      assert.deepEqual(named.slice(0, 4), ['r1', 'r2', 'an event', 'r3']);
      assert.equal(lines[3].level, 'error');
      assert.equal(named.length, 305);
      assert.equal(named.at(-1), 'last');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('requestLine', () => {
  it('writes the line pino writes for the same request, field for field and in order', async () => {
    const { pino } = await import('pino');
    const { requestLine } = await import(SERVICE_LOG);
    const observations = [
      { route: '/api/v1/analyze/free', method: 'POST', status: 200, ms: 1.23456, requestId: 'abc-1', ip: '127.0.0.1' },
      { route: '/*', method: 'GET', status: 404, ms: 0.1, requestId: 'a"b\\c', ip: '::1' },
      { route: '/api/v1/analyze', method: 'POST', status: 503, ms: 12, requestId: 'x', ip: '10.0.0.1' },
      { route: '/api/v1/auth/verify', method: 'POST', status: 401, ms: 3.0004, requestId: 'y', ip: '10.0.0.2' },
    ];
    for (const o of observations) {
      let written = '';
      const logger = pino({ base: { pid: 42 }, timestamp: () => ',"time":1700000000000', formatters: { level: (label: string) => ({ level: label }) } },
        { write: (line: string) => { written += line; } });
      const { requestLevel } = await import(SERVICE_LOG);
      logger[requestLevel(o.status) as 'info']({ req_id: o.requestId, method: o.method, route: o.route, status: o.status, ms: Math.round(o.ms * 1000) / 1000, ip: o.ip }, 'request');
      assert.equal(requestLine(o, 1700000000000, 42), written);
    }
  });

  it("writes pino's line for any method, route, address and request id, met once or again", async () => {
    const { pino } = await import('pino');
    const { requestLine, requestLevel } = await import(SERVICE_LOG);
    // Few values, so the same ones come back: a line is written from what was kept of them too.
    const text = fc.oneof(fc.string(), fc.constantFrom('POST', '/api/v1/analyze/free', '127.0.0.1', 'a"b\\c', 'é\u2028'));
    fc.assert(fc.property(text, text, text, text, fc.constantFrom(200, 404, 429, 503), (method, route, ip, requestId, status) => {
      let written = '';
      const logger = pino({ base: { pid: 42 }, timestamp: () => ',"time":1700000000000', formatters: { level: (label: string) => ({ level: label }) } },
        { write: (line: string) => { written += line; } });
      logger[requestLevel(status) as 'info']({ req_id: requestId, method, route, status, ms: 1.5, ip }, 'request');
      const o = { route, method, status, ms: 1.5, requestId, ip };
      return requestLine(o, 1700000000000, 42) === written && requestLine(o, 1700000000000, 42) === written;
    }), { numRuns: 500 });
  });
});

describe('millisText', () => {
  it('writes what String(Math.round(ms * 1000) / 1000) writes', async () => {
    const { millisText } = await import(SERVICE_LOG);
    for (const ms of [0, 0.0004, 0.0005, 0.001, 0.01, 0.1, 1, 1.5, 1.23456, 3.0004, 12, 99.9999, 1000.001, 86_400_000.123]) {
      assert.equal(millisText(ms), String(Math.round(ms * 1000) / 1000), String(ms));
    }
    fc.assert(fc.property(fc.double({ min: 0, max: 1e9, noNaN: true }), (ms) => millisText(ms) === String(Math.round(ms * 1000) / 1000)));
  });
});

describe('serviceLog hand-over', () => {
  // The clock is node:test's: the timer runs when the test moves time, never on a wait.
  it('writes a gathered request line a tenth of a second after the first one waiting, with no flush called', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'setInterval'] });
    const dir = mkdtempSync(join(tmpdir(), 'service-log-'));
    try {
      const path = join(dir, 'stderr');
      const { serviceLog } = await import(SERVICE_LOG);
      const logs = serviceLog(openSync(path, 'w'));
      const request = (requestId: string) => ({ route: '/api/v1/analyze/free', method: 'POST', status: 200, ms: 1, requestId, ip: '127.0.0.1' });
      const written = () => readFileSync(path, 'utf8').split('\n').filter(Boolean).map((line) => (JSON.parse(line) as { req_id: string }).req_id);
      t.mock.timers.tick(1_000);
      logs.request(request('r1'));
      t.mock.timers.tick(60);
      logs.request(request('r2'));
      t.mock.timers.tick(39);
      assert.deepEqual(written(), [], 'the two lines wait to go out in one write');
      t.mock.timers.tick(1);
      assert.deepEqual(written(), ['r1', 'r2']);
      // Long after (the log idle meanwhile), a new line is written within 100 ms too.
      t.mock.timers.tick(5_000);
      logs.request(request('r3'));
      t.mock.timers.tick(99);
      assert.deepEqual(written(), ['r1', 'r2']);
      t.mock.timers.tick(1);
      assert.deepEqual(written(), ['r1', 'r2', 'r3']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
