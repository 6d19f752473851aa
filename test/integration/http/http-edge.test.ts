// The uWS edge over real loopback sockets: routing, body limits, malformed input, content types.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startEdge } from '../../../src/http/server.js';
import { getJson, postJson, sampleTrade, startTestService, type TestService } from '../../support/service.js';
import { waitUntil } from '../../support/wait-until.js';

let running: TestService;

before(async () => {
  running = await startTestService({ MAX_BODY_BYTES: '4096' });
});
after(() => running.stop());

/** Sends a raw request with node:http so the test controls framing (chunked, Content-Length). */
function rawPost(path: string, chunks: Buffer[], headers: Record<string, string>) {
  return new Promise<{ status: number; body: string; headers: Record<string, unknown> }>((resolve, reject) => {
    const url = new URL(path, running.base);
    const req = request(url, { method: 'POST', headers, agent: false }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

describe('routing', () => {
  it('answers an unknown path with a JSON 404', async () => {
    const response = await getJson(`${running.base}/no/such/path`);
    assert.equal(response.status, 404);
    assert.equal(response.headers.get('content-type'), 'application/json');
    assert.deepEqual(response.json, { detail: 'Not Found', code: 'not_found' });
  });

  it('answers a wrong method with 405 and Allow', async () => {
    const response = await getJson(`${running.base}/api/v1/analyze/free`);
    assert.equal(response.status, 405);
    assert.equal(response.headers.get('allow'), 'POST');
    assert.deepEqual(response.json, { detail: 'Method Not Allowed', code: 'method_not_allowed' });
    const post = await postJson(`${running.base}/api/v1/assets`, {});
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET');
  });

  it('serves the service information at /', async () => {
    const response = await getJson(`${running.base}/`);
    assert.equal(response.status, 200);
    assert.equal(response.json.name, 'trade-guardrail');
    assert.deepEqual(response.json.chain, { id: 4663, caip2: 'eip155:4663', name: 'Robinhood Chain' });
    assert.equal(response.json.links.methodology, '/.well-known/methodology.md');
  });

  it('answers /healthz with 200 while the store is reachable', async () => {
    const response = await getJson(`${running.base}/healthz`);
    assert.equal(response.status, 200);
    assert.deepEqual(response.json, { status: 'ok', store: 'reachable' });
  });

  it('serves the methodology as markdown, generated from the reason catalogue', async () => {
    const response = await getJson(`${running.base}/.well-known/methodology.md`);
    const text = response.text;
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'text/markdown; charset=utf-8');
    assert.match(text, /\| `NOTIONAL_OVER_TIER_LIMIT` \| blocking \| trade \| yes \|/);
    assert.match(text, /\| 1 \| 5,000 \| 500 \| 5,000 \| 10 \|/);
    assert.match(text, /\| `PREVIEW_ABOVE_ENTITLEMENT` \| blocking \| wallet \| yes \|/);
  });

  it('states the sign-in message, the token lifetime, the preview rule and the input bounds', async () => {
    const text = (await getJson(`${running.base}/.well-known/methodology.md`)).text;
    assert.match(text, /The nonce message is an EIP-4361 \(Sign-In with Ethereum\) message for chain ID 4663.*valid 5 minutes and single use/);
    assert.match(text, /The access token is an HS256 JWT with a `jti`, valid 3600 s/);
    assert.match(text, /a preview above the tier the holdings grant is always `deny` with `PREVIEW_ABOVE_ENTITLEMENT` first/);
    assert.match(text, /JSON nests at most 32 levels.*A 422 echoes at most 200 characters/);
  });
});

describe('malformed bodies', () => {
  const url = () => `${running.base}/api/v1/analyze/free`;

  it('refuses invalid JSON with json_invalid at its position', async () => {
    const response = await postJson(url(), '{"wallet": ');
    assert.equal(response.status, 422);
    assert.equal(response.json.detail.length, 1);
    const [issue] = response.json.detail;
    assert.deepEqual([issue.loc[0], issue.msg, issue.type, issue.input], ['body', 'JSON decode error', 'json_invalid', {}]);
    assert.equal(typeof issue.loc[1], 'number');
    assert.equal(typeof issue.ctx.error, 'string');
  });

  it('refuses an empty body as a missing body', async () => {
    const response = await postJson(url(), '');
    assert.equal(response.status, 422);
    assert.deepEqual(response.json, { detail: [{ loc: ['body'], msg: 'Field required', type: 'missing', input: null }], code: 'validation_failed' });
  });

  it('refuses a non-object body', async () => {
    for (const body of ['[1,2]', '"text"', '42', 'null']) {
      const response = await postJson(url(), body);
      assert.equal(response.status, 422, body);
      assert.deepEqual(response.json.detail[0].loc, ['body']);
      assert.equal(response.json.detail[0].type, 'model_attributes_type');
    }
  });

  it('refuses a declared oversized body with 413 before reading it', async () => {
    const big = Buffer.alloc(64 * 1024, 'a');
    const response = await rawPost('/api/v1/analyze/free', [big], {
      'content-type': 'application/json',
      'content-length': String(big.length),
    });
    assert.equal(response.status, 413);
    assert.deepEqual(JSON.parse(response.body), { detail: 'Request body exceeds the limit of 4096 bytes', code: 'body_too_large' });
  });

  it('refuses a chunked body with 413 once it passes the cap', async () => {
    const chunks = Array.from({ length: 8 }, () => Buffer.alloc(1024, 'b'));
    const response = await rawPost('/api/v1/analyze/free', chunks, {
      'content-type': 'application/json',
      'transfer-encoding': 'chunked',
    });
    assert.equal(response.status, 413);
  });

  it('reads a chunked body under the cap', async () => {
    const body = Buffer.from(JSON.stringify(sampleTrade({ amount: 0.5 })));
    const response = await rawPost('/api/v1/analyze/free', [body.subarray(0, 20), body.subarray(20)], {
      'content-type': 'application/json',
      'transfer-encoding': 'chunked',
    });
    assert.equal(response.status, 200, response.body);
  });
});

describe('the peer address', () => {
  // Rate limits per address and the request log key on this text: it must stay the form uWS writes.
  for (const [host, expected] of [['127.0.0.1', '127.0.0.1'], ['::1', '0000:0000:0000:0000:0000:0000:0000:0001']]) {
    it(`is the address uWS names, over ${host}`, async () => {
      const observed: string[] = [];
      const edge = await startEdge(
        [{ method: 'get', pattern: '/ip', handler: async (request) => ({ status: 200, body: { ip: request.ip } }) }],
        { host, port: 0, maxBodyBytes: 4096, corsOrigins: '*', onHandlerError: (error) => assert.fail(String(error)), observe: (o) => observed.push(o.ip) },
      );
      try {
        const url = host.includes(':') ? `http://[${host}]:${edge.port}/ip` : `http://${host}:${edge.port}/ip`;
        const response = await getJson(url);
        assert.deepEqual(response.json, { ip: expected });
        assert.deepEqual(observed, [expected]);
      } finally {
        await edge.stop(0);
      }
    });
  }
});

describe('the edge when it stops', () => {
  it('gives up a request whose client left mid-body, so a stop does not wait for it', async () => {
    const edge = await startEdge(
      [{ method: 'post', pattern: '/upload', readsBody: true, handler: async (request) => ({ status: 200, body: { bytes: request.body?.length ?? 0 } }) }],
      { host: '127.0.0.1', port: 0, maxBodyBytes: 4096, corsOrigins: '*', onHandlerError: (error) => assert.fail(`no handler error expected: ${String(error)}`) },
    );
    try {
      const socket = connect(edge.port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write('POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"partial":');
      await waitUntil(() => edge.inFlight() === 1, 'the edge never took the upload');
      socket.destroy();
      await waitUntil(() => edge.inFlight() === 0, 'the edge still waits for a body whose client is gone');
    } finally {
      await edge.stop(0);
    }
  });

  it('refuses requests on open connections once stopping, and closes them', async () => {
    const edge = await startEdge(
      [{ method: 'get', pattern: '/ping', handler: async () => ({ status: 200, body: { ok: true } }) }],
      { host: '127.0.0.1', port: 0, maxBodyBytes: 4096, corsOrigins: '*', onHandlerError: (error) => assert.fail(String(error)) },
    );
    const socket = connect(edge.port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write('GET /ping HTTP/1.1\r\nHost: x\r\n\r\n');
    await waitUntil(() => received.includes('{"ok":true}'), 'no answer before the stop');
    await edge.stop(1_000);
    socket.write('GET /ping HTTP/1.1\r\nHost: x\r\n\r\n');
    await closed;
    const second = received.slice(received.indexOf('{"ok":true}') + '{"ok":true}'.length);
    assert.match(second, /^HTTP\/1\.1 503 Service Unavailable\r\n/);
    assert.match(second, /\r\nretry-after: 1\r\n/i);
    assert.match(second, /"code":"service_stopping"/);
  });
});
