// The bench's load generators against a real uWS edge: each counts the answers without the status a row expects,
// which for the edge row is a 404 (bench/offline-scenarios.ts), and for every other row any 2xx.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runAutocannon } from '../../../bench/autocannon-load.js';
import type { LoadPlan } from '../../../bench/load-plan.js';
import { NO_ROUTE, offlinePlan } from '../../../bench/offline-scenarios.js';
import { runWrk, type LoadRun } from '../../../bench/wrk.js';
import { startEdge, type RunningEdge } from '../../../src/http/server.js';

const GENERATORS: Array<[string, (plan: LoadPlan) => Promise<LoadRun>]> = [
  ['wrk and bench/analyze.lua', (plan) => runWrk(plan, 4, 1)],
  ['autocannon', (plan) => runAutocannon(plan, 4, 1)],
];

describe('the bench counts the answers a row does not expect', () => {
  let edge: RunningEdge;
  let plan: (path: string, answers?: number) => LoadPlan;

  before(async () => {
    edge = await startEdge(
      [{ method: 'post', pattern: '/ok', readsBody: true, handler: async () => ({ status: 200, body: { ok: true } }) }],
      { host: '127.0.0.1', port: 0, maxBodyBytes: 4096, corsOrigins: '*', onHandlerError: (error) => assert.fail(String(error)) },
    );
    plan = (path, answers) => ({ ...offlinePlan(`http://127.0.0.1:${edge.port}${path}`, 10), ...(answers === undefined ? {} : { answers }) });
  });

  after(() => edge.stop(0));

  for (const [name, run] of GENERATORS) {
    it(`${name}: none when every answer is the row's 404, all when none is, and 2xx as before without one`, async () => {
      const notFound = await run(plan(NO_ROUTE, 404));
      assert.ok(notFound.requests > 0, 'no request was answered');
      assert.equal(notFound.non2xx, 0);

      const ok = await run(plan('/ok', 404));
      assert.ok(ok.requests > 0, 'no request was answered');
      assert.equal(ok.non2xx, ok.requests, 'every 200 is an answer the row does not expect');

      assert.equal((await run(plan('/ok'))).non2xx, 0);
      const refused = await run(plan(NO_ROUTE));
      assert.equal(refused.non2xx, refused.requests, 'without a status of its own, a row expects 2xx');
    });
  }
});
