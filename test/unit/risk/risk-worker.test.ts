// The Piscina scoring worker, run in a real pool, returns exactly what the in-thread engine returns, counterfactuals included.
// Batches cross the thread boundary in the compact form of risk/wire.ts, so this also shows
// that nothing the engine reads or writes is lost in that encoding.
import { deepStrictEqual } from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { Piscina } from 'piscina';
import { scoreTrade } from '../../../src/risk/counterfactuals.js';
import { decodeResults, encodeInputs } from '../../../src/risk/wire.js';
import { riskInput } from '../../support/risk-arbitraries.js';
import { makeInput } from '../../support/risk-fixtures.js';

// From dist/test/unit/ this resolves to dist/workers/score.js, the compiled worker.
const pool = new Piscina<string, string>({
  filename: new URL('../../../workers/score.js', import.meta.url).href,
  minThreads: 1,
  maxThreads: 2,
});

after(async () => {
  await pool.destroy();
});

describe('workers/score.js through Piscina', () => {
  it('scores a batch of fixed and generated inputs exactly as the in-thread engine does', async () => {
    const inputs = [makeInput(), ...fc.sample(riskInput, { numRuns: 256, seed: 4663 })];
    const batches = [inputs.slice(0, 64), inputs.slice(64, 128), inputs.slice(128, 192), inputs.slice(192)];
    const results = await Promise.all(batches.map(async (batch) => decodeResults(await pool.run(encodeInputs(batch)))));
    deepStrictEqual(results.flat(), inputs.map((input) => scoreTrade(input)));
  });

  it('an empty batch gives an empty result', async () => {
    deepStrictEqual(decodeResults(await pool.run(encodeInputs([]))), []);
  });
});
