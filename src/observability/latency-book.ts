// Latency per route, in HDR histograms over rolling windows of 1 minute, 5 minutes and 1 hour.
import * as hdr from 'hdr-histogram-js';

type Histogram = hdr.Histogram;

/** A window made of `slices` histograms of `sliceMs` each; the oldest is dropped as time moves on. */
interface WindowSpec {
  name: '1m' | '5m' | '1h';
  sliceMs: number;
  slices: number;
}

export const WINDOWS: readonly WindowSpec[] = [
  { name: '1m', sliceMs: 10_000, slices: 6 },
  { name: '5m', sliceMs: 60_000, slices: 5 },
  { name: '1h', sliceMs: 300_000, slices: 12 },
];

/** Microseconds: 1 us to 60 s at two significant digits (under 1% error), about 11 KB a histogram. */
const HISTOGRAM = { lowestDiscernibleValue: 1, highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: 2 as const };

export interface LatencySummary {
  count: number;
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  p999_ms: number;
  max_ms: number;
}

class RollingWindow {
  private readonly ring: { start: number; histogram: Histogram }[] = [];

  constructor(readonly spec: WindowSpec) {}

  record(micros: number, now: number): void {
    this.current(now).recordValue(micros);
  }

  /** Adds a finished slice of a finer window that began at `start` (within one slice of this one). */
  absorb(slice: Histogram, start: number): void {
    this.current(start).add(slice);
  }

  /** The slice of this window that holds time `at`. */
  sliceStart(at: number): number {
    return at - (at % this.spec.sliceMs);
  }

  /** Whether the slice that began at `start` is still inside the window at `now`. */
  holds(start: number, now: number): boolean {
    return start > now - this.spec.sliceMs * this.spec.slices;
  }

  /** Every slice still inside the window, added into one histogram, with `also` when given. */
  merged(now: number, also?: Histogram): Histogram {
    const total = hdr.build(HISTOGRAM);
    for (const slice of this.ring) if (this.holds(slice.start, now)) total.add(slice.histogram);
    if (also) total.add(also);
    return total;
  }

  /** The newest slice, or null before the first record. */
  newest(): { start: number; histogram: Histogram } | null {
    return this.ring[this.ring.length - 1] ?? null;
  }

  private current(now: number): Histogram {
    const start = this.sliceStart(now);
    const last = this.ring[this.ring.length - 1];
    if (last && last.start === start) return last.histogram;
    // A new slice: reuse the oldest one's memory once the ring is full.
    const reused = this.ring.length >= this.spec.slices ? this.ring.shift()!.histogram : hdr.build(HISTOGRAM);
    reused.reset();
    this.ring.push({ start, histogram: reused });
    return reused;
  }
}

/**
 * A route's three windows. A request is recorded once, into the minute's 10-second slice; when
 * a newer slice begins, the finished one is added into the 5-minute and hour windows, whose
 * slices it falls within (10 s divides both of theirs). Until then their summaries add it in.
 * Three records per request were a tenth of the request log's and metrics' cost (issue 30).
 */
class RouteWindows {
  private readonly fine: RollingWindow;
  /** The longer windows; the fine window's newest slice is the one not yet added into them. */
  private readonly coarse: RollingWindow[];

  constructor() {
    [this.fine, ...this.coarse] = WINDOWS.map((spec) => new RollingWindow(spec));
  }

  record(micros: number, now: number): void {
    const open = this.fine.newest();
    if (open !== null && open.start !== this.fine.sliceStart(now)) {
      for (const window of this.coarse) window.absorb(open.histogram, open.start);
    }
    this.fine.record(micros, now);
  }

  summaries(now: number): Record<WindowSpec['name'], LatencySummary> {
    const open = this.fine.newest();
    const out = { [this.fine.spec.name]: summarize(this.fine.merged(now)) } as Record<WindowSpec['name'], LatencySummary>;
    for (const window of this.coarse) {
      const pending = open !== null && window.holds(window.sliceStart(open.start), now) ? open.histogram : undefined;
      out[window.spec.name] = summarize(window.merged(now, pending));
    }
    return out;
  }
}

/**
 * One entry per route (and channel where a route serves several). Recording is one
 * `recordValue` into a preallocated array: nothing is allocated on the hot path except when a
 * 10-second slice begins.
 */
export class LatencyBook {
  private readonly routes = new Map<string, Map<string, RouteWindows>>();

  constructor(private readonly now: () => number) {}

  /** A request to `route` (a pattern) by `method`, answered in `ms`; summaries name it "METHOD route". */
  record(method: string, route: string, ms: number): void {
    let byMethod = this.routes.get(route);
    if (!byMethod) this.routes.set(route, (byMethod = new Map()));
    let windows = byMethod.get(method);
    if (!windows) byMethod.set(method, (windows = new RouteWindows()));
    const micros = Math.min(HISTOGRAM.highestTrackableValue, Math.max(1, Math.round(ms * 1000)));
    windows.record(micros, this.now());
  }

  /** Every route's summary in every window. */
  summaries(): Record<string, Record<WindowSpec['name'], LatencySummary>> {
    const now = this.now();
    const named: Array<[string, RouteWindows]> = [];
    for (const [route, byMethod] of this.routes) for (const [method, windows] of byMethod) named.push([`${method} ${route}`, windows]);
    const out: Record<string, Record<WindowSpec['name'], LatencySummary>> = {};
    for (const [name, windows] of named.sort(([a], [b]) => a.localeCompare(b))) out[name] = windows.summaries(now);
    return out;
  }
}

/**
 * A percentile is the top of its HDR bucket, which can lie a hair above the largest value
 * recorded; the recorded maximum bounds them all, so none is shown above it.
 */
function summarize(histogram: Histogram): LatencySummary {
  const max = histogram.maxValue;
  const ms = (micros: number) => Math.round(Math.min(micros, max)) / 1000;
  return {
    count: histogram.totalCount,
    p50_ms: ms(histogram.getValueAtPercentile(50)),
    p90_ms: ms(histogram.getValueAtPercentile(90)),
    p99_ms: ms(histogram.getValueAtPercentile(99)),
    p999_ms: ms(histogram.getValueAtPercentile(99.9)),
    max_ms: ms(max),
  };
}
