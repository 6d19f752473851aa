// Prometheus metrics (prom-client): requests, latency, decisions, audit, scoring, payments, the process and runtime; one registry per service.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

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

/** Seconds; the buckets bracket an evaluation from the echo's sub-millisecond to a settlement. */
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Label children are looked up once and kept, so a request costs a map lookup and two
 * increments, not prom-client's label hashing.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'route' | 'method' | 'status'>;
  private readonly latency: Histogram<'route'>;
  private readonly decisions: Counter<'channel' | 'decision'>;
  private readonly errors: Counter<'channel' | 'code'>;
  private readonly rateLimited: Counter<'route'>;
  private readonly payments: Counter<'outcome' | 'reason'>;
  private readonly requestChildren = new Map<string, { inc(): void }>();
  private readonly latencyChildren = new Map<string, { observe(value: number): void }>();

  constructor(gauges: ServiceGauges) {
    const registers = [this.registry];
    // The process and Node runtime figures every Prometheus client exports (CPU, memory, event-loop lag, GC, handles).
    collectDefaultMetrics({ register: this.registry });
    this.requests = new Counter({ name: 'guardrail_http_requests_total', help: 'HTTP requests by route, method and status', labelNames: ['route', 'method', 'status'], registers });
    this.latency = new Histogram({ name: 'guardrail_http_request_duration_seconds', help: 'Time from request to response written, by route', labelNames: ['route'], buckets: BUCKETS, registers });
    this.decisions = new Counter({ name: 'guardrail_decisions_total', help: 'Verdicts by channel and decision', labelNames: ['channel', 'decision'], registers });
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
    const key = `${route} ${method} ${status}`;
    let counter = this.requestChildren.get(key);
    if (!counter) {
      counter = this.requests.labels(route, method, String(status));
      this.requestChildren.set(key, counter);
    }
    counter.inc();
    let histogram = this.latencyChildren.get(route);
    if (!histogram) {
      histogram = this.latency.labels(route);
      this.latencyChildren.set(route, histogram);
    }
    histogram.observe(ms / 1000);
    if (status === 429) this.rateLimited.labels(route).inc();
  }

  decision(channel: string, decision: string): void {
    this.decisions.labels(channel, decision).inc();
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
