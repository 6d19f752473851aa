// The status page's decisions per minute: sixty minutes, oldest first, a minute's counts gone once it is an hour old.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DecisionTimeline } from '../../../src/observability/decision-timeline.js';
import { ManualClock, OPEN_MARKET_MS } from '../../support/manual-clock.js';

const MINUTE = 60_000;

describe('DecisionTimeline', () => {
  it('gives the last 60 minutes oldest first, each with its allow, warn and deny, and leaves error verdicts out', () => {
    const clock = new ManualClock();
    const timeline = new DecisionTimeline(clock.now);
    for (const decision of ['allow', 'allow', 'deny', 'error']) timeline.record(decision);
    clock.advance(MINUTE);
    timeline.record('warn');
    const hour = timeline.lastHour();
    assert.equal(hour.length, 60);
    assert.deepEqual(hour.slice(-2), [
      { start: OPEN_MARKET_MS, allow: 2, warn: 0, deny: 1 },
      { start: OPEN_MARKET_MS + MINUTE, allow: 0, warn: 1, deny: 0 },
    ]);
    assert.deepEqual(hour[0], { start: OPEN_MARKET_MS - 58 * MINUTE, allow: 0, warn: 0, deny: 0 });
  });

  it('drops a minute an hour later, and a slot reused by a new minute starts from zero', () => {
    const clock = new ManualClock();
    const timeline = new DecisionTimeline(clock.now);
    timeline.record('deny');
    clock.advance(59 * MINUTE);
    assert.deepEqual(timeline.lastHour()[0], { start: OPEN_MARKET_MS, allow: 0, warn: 0, deny: 1 });
    clock.advance(MINUTE);
    assert.equal(timeline.lastHour().reduce((sum, minute) => sum + minute.deny, 0), 0);
    timeline.record('allow');
    assert.deepEqual(timeline.lastHour().at(-1), { start: OPEN_MARKET_MS + 60 * MINUTE, allow: 1, warn: 0, deny: 0 });
  });
});
