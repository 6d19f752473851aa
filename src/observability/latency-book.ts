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

  constructor(private readonly spec: WindowSpec) {}

  record(micros: number, now: number): void {
    this.current(now).recordValue(micros);
  }

  /** Every slice still inside the window, added into one histogram. */
  merged(now: number): Histogram {
    const total = hdr.build(HISTOGRAM);
    const oldest = now - this.spec.sliceMs * this.spec.slices;
    for (const slice of this.ring) if (slice.start > oldest) total.add(slice.histogram);
    return total;
  }

  private current(now: number): Histogram {
    const start = now - (now % this.spec.sliceMs);
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
 * One entry per route (and channel where a route serves several). Recording is three
 * `recordValue` calls into preallocated arrays: nothing is allocated on the hot path except
 * when a 10-second slice begins.
 */
export class LatencyBook {
  private readonly routes = new Map<string, RollingWindow[]>();

  constructor(private readonly now: () => number) {}

  record(route: string, ms: number): void {
    let windows = this.routes.get(route);
    if (!windows) {
      windows = WINDOWS.map((spec) => new RollingWindow(spec));
      this.routes.set(route, windows);
    }
    const micros = Math.min(HISTOGRAM.highestTrackableValue, Math.max(1, Math.round(ms * 1000)));
    const now = this.now();
    for (const window of windows) window.record(micros, now);
  }

  /** Every route's summary in every window. */
  summaries(): Record<string, Record<WindowSpec['name'], LatencySummary>> {
    const now = this.now();
    const out: Record<string, Record<string, LatencySummary>> = {};
    for (const [route, windows] of [...this.routes].sort(([a], [b]) => a.localeCompare(b))) {
      out[route] = Object.fromEntries(windows.map((window, index) => [WINDOWS[index].name, summarize(window.merged(now))]));
    }
    return out as Record<string, Record<WindowSpec['name'], LatencySummary>>;
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
