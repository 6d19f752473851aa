// A load plan run by autocannon, when wrk is not installed: the same requests analyze.lua would send.
import autocannon from 'autocannon';
import { requestAt, type LoadPlan } from './load-plan.js';
import { allAnswered, runWrk, type LoadRun } from './wrk.js';

/** A run of exactly `requests` requests at `perSecond` (autocannon's overallRate), in place of as many as the duration takes. */
export interface Pace {
  perSecond: number;
  requests: number;
  timeoutSeconds: number;
}

/**
 * Unlike wrk, autocannon keeps state per connection, so an MCP plan's sessions stay one per
 * connection here; other rotations (bearer tokens with their wallets) change per request as in wrk.
 */
export async function runAutocannon(plan: LoadPlan, connections: number, seconds: number, pace?: Pace): Promise<LoadRun> {
  let n = 0;
  let nextSession = 0;
  const result = await autocannon({
    url: plan.url,
    connections,
    duration: seconds,
    ...(pace ? { overallRate: pace.perSecond, amount: pace.requests, timeout: pace.timeoutSeconds } : {}),
    pipelining: 1,
    requests: [
      {
        method: 'POST',
        setupRequest: (request, context: object) => {
          const planned = requestAt(plan, ++n);
          if (plan.mcp && plan.rotation.length > 0) {
            const connection = context as { session?: string };
            connection.session ??= plan.rotation[nextSession++ % plan.rotation.length].value;
            planned.headers['mcp-session-id'] = connection.session;
          }
          return { ...request, headers: planned.headers, body: planned.body };
        },
      },
    ],
  });
  return {
    requests: result.requests.total,
    durationSeconds: result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: plan.answers === undefined ? result.non2xx : result.requests.total - (result.statusCodeStats?.[`${plan.answers}`]?.count ?? 0),
    socketErrors: result.errors + result.timeouts,
  };
}

/**
 * Warms a service for runs autocannon paces: first with wrk's load, as `npm run bench` warms it, then with autocannon's.
 * Its requests differ from wrk's in their headers, and its first ones deoptimized functions V8 had compiled on wrk's
 * (respond, copyHeader; `--trace-deopt`), which a paced run that began there paid to compile again.
 */
export async function warmForPacedRuns(
  plan: LoadPlan, wrk: { connections: number; seconds: number; timeoutSeconds?: number }, paced: { connections: number; seconds: number },
): Promise<void> {
  allAnswered(await runWrk(plan, wrk.connections, wrk.seconds, wrk.timeoutSeconds), 'the warm-up on wrk');
  allAnswered(await runAutocannon(plan, paced.connections, paced.seconds), 'the warm-up on autocannon');
}
