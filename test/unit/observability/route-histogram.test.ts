// The request-duration histogram kept by route outside prom-client writes what prom-client's own Histogram writes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Histogram, Registry } from 'prom-client';
import { RouteHistogram } from '../../../src/observability/metrics.js';

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The exposition text of each for the same observations. */
async function both(observations: [string, number][]): Promise<[string, string]> {
  const ours = new Registry();
  const histogram = new RouteHistogram('t_seconds', 'help text', BUCKETS);
  ours.registerMetric(histogram as unknown as Parameters<Registry['registerMetric']>[0]);
  const theirs = new Registry();
  const reference = new Histogram({ name: 't_seconds', help: 'help text', labelNames: ['route'], buckets: BUCKETS, registers: [theirs] });
  for (const [route, seconds] of observations) {
    histogram.observe(route, seconds);
    reference.labels(route).observe(seconds);
  }
  return [await ours.metrics(), await theirs.metrics()];
}

describe('RouteHistogram', () => {
  it('writes the buckets, sum and count prom-client writes, bounds and routes included', async () => {
    const [ours, theirs] = await both([['/a', 0.0005], ['/a', 0.0004], ['/b', 10], ['/b', 11], ['/a', 0.003], ['/*', 0.001]]);
    assert.equal(ours, theirs);
    assert.match(ours, /t_seconds_bucket\{le="0\.0005",route="\/a"\} 2/);
  });

  it('agrees with prom-client on any observations', async () => {
    const observation = fc.tuple(fc.constantFrom('/api/v1/analyze/free', '/mcp', '/*'), fc.double({ min: 0, max: 20, noNaN: true }));
    await fc.assert(fc.asyncProperty(fc.array(observation, { maxLength: 50 }), async (observations) => {
      const [ours, theirs] = await both(observations);
      assert.equal(ours, theirs);
    }), { numRuns: 200 });
  });
});
