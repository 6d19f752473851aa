// REST handlers in process: the service's own routes called with a plain request, no socket (the edge has its socket suite, http-edge.test.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { inject } from '../../../support/inject.js';
import { OPEN_MARKET_MS } from '../../../support/manual-clock.js';
import { sampleTrade, startTestService, type TestService } from '../../../support/service.js';

let running: TestService;
const routes = () => running.service.routes;
const WALLET = '0x00000000000000000000000000000000000000c1';

before(async () => {
  running = await startTestService({}, undefined, { now: () => OPEN_MARKET_MS });
});
after(() => running.stop());

describe('REST handlers, request in, response out', () => {
  it('lists the registry', async () => {
    const answer = await inject(routes(), 'GET', '/api/v1/assets');
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, running.service.registry.listing);
  });

  it('answers a trade with a recorded verdict that the wallet audit route then lists', async () => {
    const verdict = await inject(routes(), 'POST', '/api/v1/analyze/free', { body: sampleTrade({ wallet: WALLET, amount: 1 }) });
    assert.equal(verdict.status, 200);
    assert.deepEqual([verdict.body.decision, verdict.body.price_source, verdict.body.calculated_notional_usd], ['allow', 'fallback_default', 350.25]);
    const listed = await inject(routes(), 'GET', `/api/v1/audit/wallet/${WALLET}?limit=5`);
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body.records.map((record: { seq: number; hash: string }) => [record.seq, record.hash]), [[verdict.body.audit_seq, verdict.body.audit_hash]]);
  });

  it('refuses a bad field with the FastAPI-shaped 422 and a missing bearer with 401', async () => {
    const invalid = await inject(routes(), 'POST', '/api/v1/analyze/free', { body: sampleTrade({ side: 'hold' }) });
    assert.equal(invalid.status, 422);
    assert.deepEqual(invalid.body.detail.map((issue: { loc: string[]; type: string }) => [issue.loc, issue.type]), [[['body', 'side'], 'literal_error']]);
    const unsigned = await inject(routes(), 'POST', '/api/v1/analyze/trade', { body: sampleTrade() });
    assert.equal(unsigned.status, 401);
    assert.deepEqual(unsigned.body, { detail: 'Not authenticated', code: 'not_authenticated' });
    assert.equal(unsigned.headers['www-authenticate'], 'Bearer');
  });

  it('reports liveness with a reachable store', async () => {
    const health = await inject(routes(), 'GET', '/healthz');
    assert.deepEqual([health.status, health.body], [200, { status: 'ok', store: 'reachable' }]);
  });
});
