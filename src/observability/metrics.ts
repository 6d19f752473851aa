// Prometheus metrics (prom-client): requests, latency, decisions, audit, scoring, payments, the process and runtime; one registry per service.
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { DecisionTimeline } from './decision-timeline.js';

export interface ServiceGauges {
  /** Audit appends and group-commit writes so far. */
  audit: () => { appends: number; writes: number };
  /** Evaluations waiting for the scoring pool. */
  scoringQueue: () => number;
  /** Audit verifications run, and how many found the chain broken. */
  verifications: () => { total: number; broken: number };
  /** Log lines dropped because stderr's reader lagged. */
  logDrops: () => number;
  /** Busy seconds of the service's own threads that run an event loop (the audit index, the proof tree), by name. */
  threads: () => Record<string, number>;
}

/** The reason codes of a wallet's own limits (src/risk/reason-codes.ts). */
const POLICY_PREFIX = 'POLICY_';

/** `CODE: words` -> `CODE` (ARCHITECTURE.md "Reason strings"). */
function codeOf(reason: string): string {
  const colon = reason.indexOf(':');
  return colon < 0 ? reason : reason.slice(0, colon);
}

/** Seconds; the buckets bracket an evaluation from the echo's sub-millisecond to a settlement. */
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Requests are counted here, by route, method and status in nested maps, and their durations in
 * a bucket array per route; both are handed to prom-client when it is scraped. A prom-client
 * child hashes and checks its labels on every increment or observation (issue 30).
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly latency: RouteHistogram;
  private readonly decisions: Tally;
  private readonly policyRefusals: Tally;
  /** Verdicts per minute over the last hour, the status page's chart (/metrics/decisions.json). */
  readonly decisionsPerMinute: DecisionTimeline;
  private readonly errors: Counter<'channel' | 'code'>;
  private readonly rateLimited: Counter<'route'>;
  private readonly payments: Counter<'outcome' | 'reason'>;
  private readonly requests: Tally;

  constructor(gauges: ServiceGauges, now: () => number) {
    const registers = [this.registry];
    // The process and Node runtime figures every Prometheus client exports (CPU, memory, event-loop lag, GC, handles).
    collectDefaultMetrics({ register: this.registry });
    this.requests = new Tally('guardrail_http_requests_total', 'HTTP requests by route, method and status', ['route', 'method', 'status'], registers);
    this.latency = new RouteHistogram('guardrail_http_request_duration_seconds', 'Time from request to response written, by route', BUCKETS);
    this.registry.registerMetric(this.latency as unknown as Parameters<Registry['registerMetric']>[0]);
    this.decisions = new Tally('guardrail_decisions_total', 'Verdicts by channel and decision', ['channel', 'decision'], registers);
    this.policyRefusals = new Tally('guardrail_policy_refusals_total', 'Denies by a limit the wallet or its operator set, by POLICY_* reason code', ['code'], registers);
    this.decisionsPerMinute = new DecisionTimeline(now);
    this.errors = new Counter({ name: 'guardrail_evaluation_errors_total', help: 'Evaluations that failed closed, by channel and code (chain_unavailable counts RPC failures)', labelNames: ['channel', 'code'], registers });
    this.rateLimited = new Counter({ name: 'guardrail_rate_limited_total', help: 'Requests refused with 429, by route', labelNames: ['route'], registers });
    this.payments = new Counter({ name: 'guardrail_payments_total', help: 'x402 payments by outcome (settled, refused, failed) and reason', labelNames: ['outcome', 'reason'], registers });
    // Running totals are counters (`_total`), read from their owners at scrape time: a counter is set by reset and inc.
    const total = (name: string, help: string, read: () => number) =>
      new Counter({ name, help, registers, collect() { this.reset(); this.inc(read()); } });
    total('guardrail_audit_appends_total', 'Audit records appended since start', () => gauges.audit().appends);
    total('guardrail_audit_writes_total', 'Audit group-commit writes since start', () => gauges.audit().writes);
    total('guardrail_audit_verifications_total', 'Audit chain verifications run since start', () => gauges.verifications().total);
    total('guardrail_audit_verifications_broken_total', 'Audit chain verifications since start that found the chain broken', () => gauges.verifications().broken);
    total('guardrail_log_lines_dropped_total', 'Log lines dropped since start because stderr was read too slowly', () => gauges.logDrops());
    new Counter({
      name: 'guardrail_thread_busy_seconds_total', help: 'Seconds a service thread has been busy since start (its event loop utilization), by thread', labelNames: ['thread'], registers,
      collect() {
        this.reset();
        for (const [thread, seconds] of Object.entries(gauges.threads())) this.inc({ thread }, seconds);
      },
    });
    new Gauge({ name: 'guardrail_scoring_queue_depth', help: 'Evaluations waiting for the scoring pool', registers, collect() { this.set(gauges.scoringQueue()); } });
  }

  request(route: string, method: string, status: number, ms: number): void {
    this.requests.inc(route, method, status);
    this.latency.observe(route, ms / 1000);
    if (status === 429) this.rateLimited.labels(route).inc();
  }

  /** A verdict as recorded; a deny counts each POLICY_* code among its reasons (docs/fleet-limits.md). */
  decision(channel: string, decision: string, reasons: readonly string[]): void {
    this.decisions.inc(channel, decision);
    this.decisionsPerMinute.record(decision);
    if (decision !== 'deny') return;
    for (const reason of reasons) if (reason.startsWith(POLICY_PREFIX)) this.policyRefusals.inc(codeOf(reason));
  }

  evaluationError(channel: string, code: string): void {
    this.errors.labels(channel, code).inc();
  }

  payment(outcome: 'settled' | 'refused' | 'failed', reason: string): void {
    this.payments.labels(outcome, reason).inc();
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

type Tallies = Map<string | number, Tallies | { n: number }>;

/**
 * A counter kept in nested maps, a level per label, and handed to prom-client when it is
 * scraped: an increment is a map lookup per label, where a prom-client child hashes its labels
 * on every increment (issue 30). Label values are kept as given (a status as a number) and
 * written as text.
 */
class Tally {
  private readonly root: Tallies = new Map();

  constructor(name: string, help: string, private readonly labelNames: readonly string[], registers: Registry[]) {
    const tally = this;
    new Counter({
      name, help, labelNames: [...labelNames], registers,
      collect() {
        this.reset();
        tally.each(tally.root, [], (labels, n) => this.inc(labels, n));
      },
    });
  }

  inc(...values: Array<string | number>): void {
    let level = this.root;
    for (let i = 0; i < values.length - 1; i++) {
      let next = level.get(values[i]) as Tallies | undefined;
      if (next === undefined) level.set(values[i], (next = new Map()));
      level = next;
    }
    const last = values[values.length - 1];
    const count = level.get(last) as { n: number } | undefined;
    if (count === undefined) level.set(last, { n: 1 });
    else count.n += 1;
  }

  private each(level: Tallies, values: Array<string | number>, visit: (labels: Record<string, string>, n: number) => void): void {
    for (const [value, below] of level) {
      const path = [...values, value];
      if (path.length < this.labelNames.length) this.each(below as Tallies, path, visit);
      else visit(Object.fromEntries(this.labelNames.map((name, i) => [name, String(path[i])])), (below as { n: number }).n);
    }
  }
}

/** One exposed sample, in the shape prom-client's registry writes out. */
interface Sample {
  labels: Record<string, string | number>;
  value: number;
  metricName: string;
}

/**
 * Request durations by route as a Prometheus histogram: counted here, a bucket array per route,
 * and written out by prom-client's registry at scrape with the samples its own Histogram gives
 * (cumulative `_bucket`s with `le` first, `+Inf`, `_sum`, `_count`); a test reads them back.
 */
export class RouteHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly routes = new Map<string, { counts: number[]; sum: number; count: number }>();

  constructor(readonly name: string, readonly help: string, private readonly bounds: readonly number[]) {}

  /** An observation falls in the first bucket whose bound it does not exceed, as in prom-client. */
  observe(route: string, seconds: number): void {
    let kept = this.routes.get(route);
    if (kept === undefined) this.routes.set(route, (kept = { counts: this.bounds.map(() => 0), sum: 0, count: 0 }));
    let at = 0;
    while (at < this.bounds.length && seconds > this.bounds[at]) at++;
    if (at < this.bounds.length) kept.counts[at]++;
    kept.sum += seconds;
    kept.count++;
  }

  get(): { name: string; help: string; type: string; values: Sample[]; aggregator: string } {
    const values: Sample[] = [];
    for (const [route, kept] of this.routes) {
      let below = 0;
      this.bounds.forEach((le, i) => {
        below += kept.counts[i];
        values.push({ labels: { le, route }, value: below, metricName: `${this.name}_bucket` });
      });
      values.push(
        { labels: { le: '+Inf', route }, value: kept.count, metricName: `${this.name}_bucket` },
        { labels: { route }, value: kept.sum, metricName: `${this.name}_sum` },
        { labels: { route }, value: kept.count, metricName: `${this.name}_count` },
      );
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    this.routes.clear();
  }
}
