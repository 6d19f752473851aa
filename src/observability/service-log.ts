// The service's log: pino JSON lines on stderr, one per answered request and one per event.
import { pino, type Logger as Pino } from 'pino';
import type { LogLevel } from '../catalogue/failures.js';
import type { Observation } from '../http/server.js';

export interface ServiceLog {
  /** An event in words (start-up, a failure) at its level; the words never hold a secret (failures.ts redacts). */
  line(text: string, level?: LogLevel): void;
  /** One answered request (404 and 405 too): route, method, status, time, request id, at the level of `requestLevel`. Never headers or bodies. */
  request(observation: Observation): void;
  /** Lines dropped because stderr's reader fell more than MAX_PENDING_BYTES behind. */
  dropped(): number;
  flush(): void;
}

/**
 * Past this much unwritten log the next lines are dropped, and counted, rather than kept:
 * a reader that lags must not grow the heap. (Under load with the buffer unbounded, wrk's p99
 * went from 12 ms to 77-170 ms in some bench runs; bounded, three runs gave 11-12.5 ms.)
 */
const MAX_PENDING_BYTES = 1024 * 1024;

/** Request lines gathered before they are handed to the stream in one write. */
const CHUNK_CHARS = 16 * 1024;

/**
 * Every log's last writes, run when the process exits however it exits (an uncaught exception
 * too): the lines still gathered here are the ones before the crash. pino's own exit hook flushes
 * only what its stream holds, and runs first.
 */
const atExit = new Set<() => void>();
let exitHooked = false;
function onExit(flush: () => void): void {
  atExit.add(flush);
  if (exitHooked) return;
  exitHooked = true;
  process.once('exit', () => {
    for (const each of atExit) each();
  });
}

/**
 * pino on its own asynchronous destination (sonic-boom). Request lines gather here and go to the
 * stream 16 KiB at a time, and at least every tenth of a second: sonic-boom measures the bytes of
 * its whole pending buffer on every write, so one write per line cost more as the buffer grew
 * (issue 30). A 5xx request line and every event are written at once, after the lines before them.
 * Only the fields below are logged, so a bearer token, an admin token, a payment signature or the
 * JWT secret cannot reach the log. At 16,000 requests a second the lines cost about a tenth of
 * the throughput on two cores (README "Benchmarks"); REQUEST_LOG=off leaves them out.
 */
export function serviceLog(destination = 2): ServiceLog {
  const stream = pino.destination({ dest: destination, sync: false, minLength: 4096, maxLength: MAX_PENDING_BYTES });
  let dropped = 0;
  stream.on('drop', (data: string) => {
    // A dropped write is a chunk of request lines or one event line: count its lines.
    let lines = 0;
    for (let at = data.indexOf('\n'); at !== -1; at = data.indexOf('\n', at + 1)) lines++;
    dropped += Math.max(1, lines);
  });
  let pending = '';
  const handOver = () => {
    if (pending === '') return;
    stream.write(pending);
    pending = '';
  };
  // process.pid is a getter into the runtime: read once, not per request line.
  const pid = process.pid;
  const logger: Pino = pino({ base: { pid }, formatters: { level: (label) => ({ level: label }) } }, stream);
  setInterval(() => {
    handOver();
    stream.flush();
  }, 100).unref();
  onExit(() => {
    handOver();
    try {
      stream.flushSync();
    } catch {
      // A pipe that cannot take more now (EAGAIN): at exit there is no later.
    }
  });
  return {
    line: (text, level = 'info') => {
      handOver();
      logger[level](text);
      stream.flush();
    },
    request: (o) => {
      pending += requestLine(o, Date.now(), pid);
      if (o.status >= 500) {
        handOver();
        stream.flush();
      } else if (pending.length >= CHUNK_CHARS) {
        handOver();
      }
    },
    dropped: () => dropped,
    flush: () => {
      handOver();
      stream.flushSync();
    },
  };
}

/**
 * One request's line, exactly as pino writes it (a unit test holds the two equal), without pino's
 * general serialiser: a line per request is on every evaluation's path (issue 30's profile).
 * The request id, method, route and address are JSON-quoted like any other string.
 */
export function requestLine(o: Observation, time: number, pid: number): string {
  return `{"level":"${requestLevel(o.status)}","time":${time},"pid":${pid},"req_id":${JSON.stringify(o.requestId)},"method":${JSON.stringify(o.method)},`
    + `"route":${JSON.stringify(o.route)},"status":${o.status},"ms":${Math.round(o.ms * 1000) / 1000},"ip":${JSON.stringify(o.ip)},"msg":"request"}\n`;
}

/**
 * A request's level by its status (README "Logs"): `error` for a 5xx (no answer was produced),
 * `warn` for refusals an operator should see (400, 401, 403, 413, 414, 415, 429: credentials,
 * smuggling shapes, limits), `info` for the rest, the client's own slips (402 challenges, 404,
 * 405, 422) included.
 */
export function requestLevel(status: number): LogLevel {
  if (status >= 500) return 'error';
  return status >= 400 && !INFO_REFUSALS.has(status) ? 'warn' : 'info';
}

const INFO_REFUSALS = new Set([402, 404, 405, 409, 422]);
