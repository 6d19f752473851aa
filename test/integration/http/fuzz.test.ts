// Arbitrary input over real HTTP never yields a 500, a hang, or a non-JSON body.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { sampleTrade, send, startTestService, type TestService } from '../../support/service.js';

let running: TestService;

before(async () => {
  running = await startTestService({ RATE_LIMITS: 'off' });
});
after(() => running.stop());

const ANSWERS = new Set([200, 404, 405, 413, 422]);

function assertAnswered(status: number, text: string, what: string): void {
  assert.ok(ANSWERS.has(status), `${what} -> ${status} ${text}`);
  assert.doesNotThrow(() => JSON.parse(text), `${what} -> body is not JSON: ${text}`);
}

/** A valid trade with one field replaced by anything JSON can carry, or removed. */
const mutatedTrade = fc
  .tuple(fc.constantFrom(...Object.keys(sampleTrade()), 'max_slippage_bps', 'deadline', 'request_id', 'allow_unregistered'), fc.option(fc.jsonValue()))
  .map(([field, value]) => {
    const trade: Record<string, unknown> = sampleTrade({ amount: 0.5 });
    if (value === null) delete trade[field];
    else trade[field] = value;
    return JSON.stringify(trade);
  });

const body = fc.oneof(mutatedTrade, fc.json(), fc.string({ unit: 'binary' }), fc.jsonValue().map((v) => JSON.stringify(v)));

describe('fuzzing the edge', () => {
  it('answers arbitrary analyze bodies with a verdict or a 422', async () => {
    await fc.assert(
      fc.asyncProperty(body, async (text) => {
        const response = await send('POST', `${running.base}/api/v1/analyze/free`, text, {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(text)),
        });
        assertAnswered(response.status, response.text, text);
      }),
      { numRuns: 300 },
    );
  });

  it('answers arbitrary paths, queries and methods with JSON', async () => {
    const path = fc.array(fc.webSegment(), { maxLength: 4 }).map((parts) => `/${parts.join('/')}`);
    const query = fc.webQueryParameters();
    const method = fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS');
    await fc.assert(
      fc.asyncProperty(method, path, query, async (verb, where, q) => {
        const url = `${running.base}${where}${q ? `?${q}` : ''}`;
        const response = await send(verb, url, verb === 'GET' ? undefined : '{}', { 'content-type': 'application/json' });
        // OPTIONS is answered 204 with the allowed methods (ARCHITECTURE.md "Cross-origin reads"): no body, by definition of 204.
        if (verb === 'OPTIONS' && response.status === 204) return assert.equal(response.text, '', `${verb} ${where}?${q}`);
        assertAnswered(response.status, response.text, `${verb} ${where}?${q}`);
      }),
      { numRuns: 300 },
    );
  });
});
