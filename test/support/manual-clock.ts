// A clock the test moves by hand, injected as the service's `now` so caches and TTLs age without sleeping.

/** Tuesday 17 November 2026, 10:00 in New York: the NYSE session is open. */
export const OPEN_MARKET_MS = Date.UTC(2026, 10, 17, 15, 0, 0);

export class ManualClock {
  constructor(private at = OPEN_MARKET_MS) {}

  /** The current instant in ms; pass `clock.now` wherever a `() => number` clock is wanted. */
  readonly now = (): number => this.at;

  /** Moves time forward (never back: TTLs and windows assume a clock that does not rewind). */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new Error(`a clock only moves forward, not by ${ms} ms`);
    this.at += ms;
  }
}
