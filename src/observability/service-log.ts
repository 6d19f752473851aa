// The service's log: pino JSON lines on stderr, one per answered request and one per event.
import { fstatSync, writeSync } from 'node:fs';
import { Socket } from 'node:net';
import type { Writable } from 'node:stream';
import { pino, type Logger as Pino } from 'pino';
import { jsonString } from '../audit/record/record.js';
import type { LogLevel } from '../catalogue/failures.js';
import type { Observation } from '../http/server.js';
import { RecentMap } from '../memo/recent-map.js';

export interface ServiceLog {
  /** An event in words (start-up, a failure) at its level; the words never hold a secret (failures.ts redacts). */
  line(text: string, level?: LogLevel): void;
  /** One answered request (404 and 405 too): route, method, status, time, request id, at the level of `requestLevel`. Never headers or bodies. */
  request(observation: Observation): void;
  /** Lines dropped because stderr's reader fell more than MAX_PENDING_BYTES behind, or was gone (a failed write). */
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

/** The longest a gathered request line waits for its write. */
const HAND_OVER_MS = 100;

/**
 * Every log's last writes, run when the process exits however it exits (an uncaught exception
 * too): the lines still gathered here are the ones before the crash.
 */
const atExit = new Set<() => void>();
function onExit(flush: () => void): void {
  // One process listener for every log, however many a process makes.
  if (atExit.size === 0) {
    process.once('exit', () => {
      for (const each of atExit) each();
    });
  }
  atExit.add(flush);
}

/** Where log text goes: written in the order given, or dropped and counted. */
interface LogSink {
  write(text: string): void;
  dropped(): number;
}

/** How many lines a chunk of log text holds (an event line without its newline counts as one). */
function linesIn(text: string): number {
  let lines = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines++;
  return Math.max(1, lines);
}

/**
 * The log's file descriptor, written on the event loop in the order of the calls, so no write can
 * overtake another and an exit writes what is left. (pino's asynchronous destination wrote from
 * libuv's threadpool, where a flush at exit could overtake a write still in flight.)
 * - A pipe or socket (a shell pipe, a container's log driver, journald, a parent process) is a
 *   libuv stream, which the runtime makes non-blocking: each write goes to the kernel at once, and
 *   what the reader has not taken waits in memory. A reader that stops reading therefore stalls
 *   nothing; past MAX_PENDING_BYTES waiting, the next writes are dropped and counted.
 * - A file, a terminal or /dev/null takes a synchronous write, as Node's own stderr does.
 * A write that fails (the reader gone, EPIPE) counts its lines as dropped; the service goes on.
 */
function logSink(fd: number): LogSink {
  let dropped = 0;
  const kind = fstatSync(fd);
  if (kind.isFIFO() || kind.isSocket()) {
    // stderr is the runtime's own stream on that descriptor; a second libuv handle on it would clash.
    const stream: Writable = fd === 2 ? process.stderr : new Socket({ fd, readable: false, writable: true }).unref();
    let failed = false;
    stream.on('error', () => {
      failed = true;
    });
    return {
      write: (text) => {
        if (failed || stream.writableLength + text.length > MAX_PENDING_BYTES) dropped += linesIn(text);
        else stream.write(text);
      },
      dropped: () => dropped,
    };
  }
  return {
    write: (text) => {
      try {
        writeSync(fd, text);
      } catch {
        dropped += linesIn(text);
      }
    },
    dropped: () => dropped,
  };
}

/**
 * pino for events, on the sink above. Request lines at `info` gather here and go to the sink 16 KiB
 * at a time, and at most a tenth of a second after the first of them: a write per line cost more than
 * the line (issue 30). The tenth of a second is a timer the first gathered line sets, not one that
 * ticks: an idle service's loop is left asleep.
 * A refusal's or an error's line (`warn`, `error`) and every event are written at once, after the
 * lines before them, in the same turn of the loop that answered: a crash after the answer, a
 * SIGKILL included, cannot lose them (ARCHITECTURE.md "Request log and metrics").
 * Only the fields below are logged, so a bearer token, an admin token, a payment signature or the
 * JWT secret cannot reach the log. At 16,000 requests a second the lines cost about a tenth of
 * the throughput on two cores (docs/benchmarks.md); REQUEST_LOG=off leaves them out.
 */
export function serviceLog(destination = 2): ServiceLog {
  const sink = logSink(destination);
  let pending = '';
  // Set while lines are pending (and at most a tenth of a second longer): a line is never gathered without it.
  let handOverTimer: NodeJS.Timeout | undefined;
  const handOver = () => {
    if (pending === '') return;
    sink.write(pending);
    pending = '';
  };
  const handOverLater = () => {
    handOverTimer = undefined;
    handOver();
  };
  // process.pid is a getter into the runtime: read once, not per request line.
  const pid = process.pid;
  const logger: Pino = pino({ base: { pid }, formatters: { level: (label) => ({ level: label }) } }, { write: sink.write });
  onExit(handOver);
  return {
    line: (text, level = 'info') => {
      handOver();
      logger[level](text);
    },
    request: (o) => {
      pending += requestLine(o, Date.now(), pid);
      if (pending.length >= CHUNK_CHARS || requestLevel(o.status) !== 'info') handOver();
      else handOverTimer ??= setTimeout(handOverLater, HAND_OVER_MS).unref();
    },
    dropped: sink.dropped,
    flush: handOver,
  };
}

/**
 * One request's line, exactly as pino writes it (a unit test holds the two equal), without pino's
 * general serialiser: a line per request is on every evaluation's path (issue 30's profile).
 * The request id, method, route and address are JSON-quoted like any other string, each by a
 * plain check first (they are tokens, patterns and addresses), the time by integer arithmetic.
 */
export function requestLine(o: Observation, time: number, pid: number): string {
  return `{"level":"${requestLevel(o.status)}","time":${time},"pid":${pid},"req_id":${jsonString(o.requestId)},"method":${quotedOften(o.method)},`
    + `"route":${quotedOften(o.route)},"status":${o.status},"ms":${millisText(o.ms)},"ip":${quotedOften(o.ip)},"msg":"request"}\n`;
}

/**
 * jsonString of a value that comes again and again (a method, a route's pattern, a client's address), kept for the values
 * met lately: each is then quoted once, not checked and joined per request line. Bounded: cleared when full.
 */
function quotedOften(value: string): string {
  let quoted = QUOTED.get(value);
  if (quoted === undefined) QUOTED.set(value, (quoted = jsonString(value)));
  return quoted;
}
const QUOTED = new RecentMap<string, string>(4_096);

/**
 * `String(Math.round(ms * 1000) / 1000)`, pino's figure, written from whole microseconds: V8
 * formats a fraction on a slow path, an integer from a cache. A property test holds the two equal.
 */
export function millisText(ms: number): string {
  const micros = Math.round(ms * 1000);
  if (!(micros >= 0 && micros <= Number.MAX_SAFE_INTEGER)) return String(Math.round(ms * 1000) / 1000);
  const whole = Math.floor(micros / 1000);
  let fraction = micros - whole * 1000;
  if (fraction === 0) return String(whole);
  let digits = 3;
  while (fraction % 10 === 0) {
    fraction /= 10;
    digits--;
  }
  return `${whole}.${String(fraction).padStart(digits, '0')}`;
}

/**
 * A request's level by its status (docs/operations.md "Watch it run"): `error` for a 5xx (no answer was produced),
 * `warn` for refusals an operator should see (400, 401, 403, 413, 414, 415, 429: credentials,
 * smuggling shapes, limits), `info` for the rest, the client's own slips (402 challenges, 404,
 * 405, 422) included.
 */
export function requestLevel(status: number): LogLevel {
  if (status >= 500) return 'error';
  return status >= 400 && !INFO_REFUSALS.has(status) ? 'warn' : 'info';
}

const INFO_REFUSALS = new Set([402, 404, 405, 409, 422]);
