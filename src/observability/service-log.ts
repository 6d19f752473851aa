// The service's log: pino JSON lines on stderr, one per answered request and one per event.
import { pino, type Logger as Pino } from 'pino';
import type { Observation } from '../http/server.js';

export interface ServiceLog {
  /** An event in words (start-up, a failure); the words never hold a secret (failures.ts redacts). */
  line(text: string): void;
  /** One answered request: route, method, status, time, request id. Never headers or bodies. */
  request(observation: Observation): void;
  flush(): void;
}

/**
 * Asynchronous writes (pino's sonic-boom): a line costs a string and a copy on the
 * event loop; under load the writes batch while one is in flight. Only these fields are logged, so a bearer
 * token, an admin token, a payment signature or the JWT secret cannot reach the log.
 */
export function serviceLog(destination = 2): ServiceLog {
  const logger: Pino = pino(
    { base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime, formatters: { level: (label) => ({ level: label }) } },
    pino.destination({ dest: destination, sync: false, minLength: 0 }),
  );
  return {
    line: (text) => logger.info(text),
    request: (o) => {
      logger.info({ req_id: o.requestId, method: o.method, route: o.route, status: o.status, ms: Math.round(o.ms * 1000) / 1000, ip: o.ip }, 'request');
    },
    flush: () => logger.flush(),
  };
}
