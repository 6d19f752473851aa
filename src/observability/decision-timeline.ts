// Verdicts per minute by decision over the last hour, for the status page's chart: 60 minute slots in a ring, one increment per verdict.

const MINUTE_MS = 60_000;
const MINUTES = 60;
const DECISIONS = ['allow', 'warn', 'deny'] as const;
type Charted = (typeof DECISIONS)[number];

/** One minute of the chart: its start (ms since the epoch) and the verdicts sealed in it. */
export interface DecisionMinute {
  start: number;
  allow: number;
  warn: number;
  deny: number;
}

/**
 * This instance's verdicts, kept in memory only: the chart shows what this process decided, as
 * its latency chart does, and costs a verdict one array increment (no store write, ARCHITECTURE.md
 * "Request log and metrics"). An `error` verdict is counted by guardrail_evaluation_errors_total.
 */
export class DecisionTimeline {
  /** Slot `minute % MINUTES` holds that minute's counts while `minutes[slot]` names it. */
  private readonly minutes = new Float64Array(MINUTES).fill(-1);
  private readonly counts = DECISIONS.map(() => new Uint32Array(MINUTES));

  constructor(private readonly now: () => number) {}

  record(decision: string): void {
    const row = DECISIONS.indexOf(decision as Charted);
    if (row < 0) return;
    const minute = Math.floor(this.now() / MINUTE_MS);
    const slot = minute % MINUTES;
    if (this.minutes[slot] !== minute) {
      this.minutes[slot] = minute;
      for (const column of this.counts) column[slot] = 0;
    }
    this.counts[row][slot] += 1;
  }

  /** The last 60 minutes, oldest first, the current one last; a minute with no verdict is all zeros. */
  lastHour(): DecisionMinute[] {
    const current = Math.floor(this.now() / MINUTE_MS);
    const out: DecisionMinute[] = [];
    for (let minute = current - MINUTES + 1; minute <= current; minute++) {
      const slot = minute % MINUTES;
      const kept = this.minutes[slot] === minute;
      const [allow, warn, deny] = this.counts.map((column) => (kept ? column[slot] : 0));
      out.push({ start: minute * MINUTE_MS, allow, warn, deny });
    }
    return out;
  }
}
