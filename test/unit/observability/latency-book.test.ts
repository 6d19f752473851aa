// Latency windows: what falls out of the last minute, five minutes and hour as the clock moves, and the percentiles.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LatencyBook } from '../../../src/observability/latency-book.js';
import { ManualClock } from '../../support/manual-clock.js';

describe('LatencyBook', () => {
  it('gives percentiles within the histogram\'s two significant digits', () => {
    const clock = new ManualClock();
    const book = new LatencyBook(clock.now);
    for (let ms = 1; ms <= 100; ms += 1) book.record('POST', '/a', ms);
    const minute = book.summaries()['POST /a']['1m'];
    assert.equal(minute.count, 100);
    for (const [got, want] of [[minute.p50_ms, 50], [minute.p90_ms, 90], [minute.p99_ms, 99], [minute.p999_ms, 100]]) {
      assert.ok(Math.abs(got - want) <= want * 0.01 + 0.001, `${got} is ${want} within 1%`);
    }
    assert.ok(minute.p999_ms <= minute.max_ms, 'no percentile above the largest value recorded');
  });

  it('drops requests from each window once they are older than it, slice by slice', () => {
    const clock = new ManualClock();
    const book = new LatencyBook(clock.now);
    book.record('GET', '/b', 5);
    const counts = () => Object.values(book.summaries()['GET /b']).map((window) => window.count);
    assert.deepEqual(counts(), [1, 1, 1]);
    clock.advance(70_000);
    assert.deepEqual(counts(), [0, 1, 1], 'gone from the last minute');
    book.record('GET', '/b', 7);
    clock.advance(5 * 60_000);
    assert.deepEqual(counts(), [0, 0, 2], 'both gone from five minutes, both within the hour');
    clock.advance(60 * 60_000);
    assert.deepEqual(counts(), [0, 0, 0]);
    book.record('GET', '/b', 9);
    assert.deepEqual(counts(), [1, 1, 1], 'slices are reused once the ring is full');
  });

  it('keeps routes apart', () => {
    const book = new LatencyBook(new ManualClock().now);
    book.record('GET', '/x', 1);
    book.record('GET', '/y', 200);
    const all = book.summaries();
    assert.deepEqual(Object.keys(all), ['GET /x', 'GET /y']);
    assert.ok(all['GET /y']['1h'].p50_ms > all['GET /x']['1h'].p50_ms);
  });

  it('counts a request in every window once, before and after its 10-second slice is added into the longer windows', () => {
    const clock = new ManualClock(1_000_000_000);
    const book = new LatencyBook(clock.now);
    const counts = () => Object.values(book.summaries()['POST /c']).map((window) => window.count);
    book.record('POST', '/c', 1);
    book.record('POST', '/c', 2);
    assert.deepEqual(counts(), [2, 2, 2], 'the open slice is in every window');
    clock.advance(10_000);
    book.record('POST', '/c', 3);
    assert.deepEqual(counts(), [3, 3, 3], 'the finished slice added in, the new one open: nothing twice');
    clock.advance(55_000);
    assert.deepEqual(counts(), [1, 3, 3], 'the first slice has left the minute');
    const hour = book.summaries()['POST /c']['1h'];
    assert.equal(hour.max_ms, 3);
  });
});
