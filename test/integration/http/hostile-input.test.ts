// Hostile input over real sockets against the real service process (`dist/service.js`, as `npm start` runs it): every documented body route, malformed framing.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { privateKeyToAccount } from 'viem/accounts';
import { MAX_ECHO_CHARS, MAX_JSON_DEPTH } from '../../../src/schemas/json-shape.js';
import { freePort } from '../../support/redis-server.js';
import { getJson, postJson, SAMPLE_REGISTRY, sampleTrade, send } from '../../support/service.js';
import { startServiceProcess, type ServiceProcess } from '../../support/service-process.js';

// anvil's first public development key: a throwaway signer for a bearer token.
const SIGNER = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcb6df2c7d1ab2ff80');
const TSLA = sampleTrade().contract_address as string;

let service: ServiceProcess;
let base: string;
let port: number;
let dataDir: string;
let bearer: Record<string, string>;

before(async () => {
  port = await freePort();
  dataDir = mkdtempSync(join(tmpdir(), 'guardrail-hostile-'));
  service = await startServiceProcess({ PORT: String(port), DATA_DIR: dataDir, REGISTRY_FILE: SAMPLE_REGISTRY, RATE_LIMITS: 'off', WORKERS: '1', AUDIT_FSYNC: 'off' });
  base = service.base;
  bearer = { authorization: `Bearer ${await signIn()}` };
});

after(async () => {
  await service.stop('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

async function signIn(): Promise<string> {
  const nonce = await getJson(`${base}/api/v1/auth/nonce?address=${SIGNER.address}`);
  const signature = await SIGNER.signMessage({ message: nonce.json.message });
  const login = await postJson(`${base}/api/v1/auth/wallet`, { address: SIGNER.address, signature });
  assert.equal(login.status, 200, login.text);
  return login.json.access_token;
}

/** A normal evaluation still gets a verdict, and the process is still the one we started. */
async function assertStillEvaluates(): Promise<void> {
  const response = await postJson(`${base}/api/v1/analyze/free`, sampleTrade({ amount: 1 }));
  assert.equal(response.status, 200, response.text);
  assert.ok(['allow', 'warn', 'deny'].includes(response.json.decision));
  assert.equal(typeof response.json.audit_seq, 'number');
  assert.equal(service.child.exitCode, null, service.output());
}

const nested = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);

/** Each documented route that reads a JSON body, with a valid body whose fields a case can bend. */
function bodyRoutes() {
  const trade = JSON.stringify(sampleTrade({ wallet: SIGNER.address }));
  return [
    { path: '/api/v1/analyze/free', body: trade, headers: {} },
    { path: '/api/v1/demo/analyze', body: trade, headers: {} },
    { path: '/api/v1/analyze/trade', body: trade, headers: bearer },
    { path: '/api/v1/auth/wallet', body: JSON.stringify({ address: SIGNER.address, signature: '0x00' }), headers: {} },
    { path: '/api/v1/config', body: JSON.stringify({ blocked_assets: [] }), headers: bearer },
    { path: '/api/v1/token-safety', body: JSON.stringify({ contract_address: TSLA }), headers: {} },
    { path: '/api/v1/simulate-balance', body: JSON.stringify({ token_address: TSLA, holder: SIGNER.address, delta: 1 }), headers: {} },
  ];
}

/** Adds `"x": <raw JSON>` to a body's object. */
const withExtra = (body: string, raw: string): string => `${body.slice(0, -1)},"x":${raw}}`;

describe('bodies no schema should see', () => {
  it('refuses nesting deeper than the limit at the field, on every body route, and keeps serving', async () => {
    for (const route of bodyRoutes()) {
      for (const raw of [nested(10_000), `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`]) {
        const response = await postJson(base + route.path, withExtra(route.body, raw), route.headers);
        assert.equal(response.status, 422, `${route.path}: ${response.text.slice(0, 200)}`);
        const [issue] = response.json.detail;
        assert.deepEqual(issue.loc, ['body', 'x']);
        assert.equal(issue.type, 'json_invalid');
        assert.deepEqual(issue.ctx, { error: 'recursion limit exceeded', max_depth: MAX_JSON_DEPTH });
        assert.ok(issue.input.length <= MAX_ECHO_CHARS + 3, 'the echo is truncated');
      }
    }
    const topLevel = await postJson(`${base}/api/v1/analyze/free`, nested(20_000));
    assert.equal(topLevel.status, 422);
    assert.deepEqual(topLevel.json.detail[0].loc, ['body', 0]);
    await assertStillEvaluates();
  });

  it('accepts nesting up to the limit where a schema allows it, and reports the schema error instead', async () => {
    const response = await postJson(`${base}/api/v1/analyze/free`, withExtra(JSON.stringify(sampleTrade()), nested(MAX_JSON_DEPTH - 1)));
    assert.equal(response.status, 422);
    assert.equal(response.json.detail[0].type, 'extra_forbidden');
  });

  it('refuses numbers that overflow to infinity and quantities past what the chain can hold', async () => {
    const cases: [string, string, string, string][] = [
      ['/api/v1/analyze/free', JSON.stringify(sampleTrade()).replace('"amount":2', '"amount":1e309'), 'amount', 'finite_number'],
      ['/api/v1/analyze/free', JSON.stringify(sampleTrade()).replace('"amount":2', '"amount":-1e309'), 'amount', 'finite_number'],
      ['/api/v1/analyze/free', JSON.stringify(sampleTrade({ amount: 1e31 })), 'amount', 'less_than_equal'],
      ['/api/v1/analyze/free', JSON.stringify(sampleTrade({ max_slippage_bps: 1 })).replace('"max_slippage_bps":1', '"max_slippage_bps":1e400'), 'max_slippage_bps', 'finite_number'],
      ['/api/v1/simulate-balance', JSON.stringify({ token_address: TSLA, holder: TSLA, delta: 1e308 }), 'delta', 'less_than_equal'],
      ['/api/v1/simulate-balance', JSON.stringify({ token_address: TSLA, holder: TSLA, delta: -1.7976931348623157e308 }), 'delta', 'greater_than_equal'],
      ['/api/v1/simulate-balance', '{"token_address":"' + TSLA + '","holder":"' + TSLA + '","delta":1e999}', 'delta', 'finite_number'],
    ];
    for (const [path, body, field, type] of cases) {
      const response = await postJson(base + path, body);
      assert.equal(response.status, 422, `${body}: ${response.text}`);
      assert.deepEqual(response.json.detail[0].loc, ['body', field]);
      assert.equal(response.json.detail[0].type, type);
    }
    await assertStillEvaluates();
  });

  it('refuses lone UTF-16 surrogates in values and keys with 422, never a 503', async () => {
    const trade = JSON.stringify(sampleTrade());
    const cases: [string, (string | number)[]][] = [
      [trade.replace('"TSLA"', '"TS\\ud800"'), ['body', 'asset']],
      [trade.replace('}', ',"request_id":"\\udfff"}'), ['body', 'request_id']],
      [trade.replace('}', ',"\\ud83d":1}'), ['body']],
    ];
    for (const [body, loc] of cases) {
      const response = await postJson(`${base}/api/v1/analyze/free`, body);
      assert.equal(response.status, 422, response.text);
      assert.deepEqual(response.json.detail[0].loc, loc);
      assert.equal(response.json.detail[0].type, 'string_unicode');
    }
    const pair = await postJson(`${base}/api/v1/analyze/free`, trade.replace('}', ',"request_id":"\\ud83d\\ude00"}'));
    assert.equal(pair.status, 200, 'a well-formed surrogate pair is ordinary text');
  });

  it('never echoes more than a short prefix of what was sent', async () => {
    const response = await postJson(`${base}/api/v1/analyze/free`, { ...sampleTrade(), x: 'a'.repeat(50_000) });
    assert.equal(response.status, 422);
    assert.equal(response.json.detail[0].input, `${'a'.repeat(MAX_ECHO_CHARS)}...`);
    const missing = await postJson(`${base}/api/v1/analyze/free`, { filler: Array.from({ length: 2000 }, (_, i) => i) });
    assert.ok(missing.text.length < 4_000, `422 body of ${missing.text.length} characters`);
  });

  it('treats NULs, prototype keys and duplicate keys as data, not as instructions', async () => {
    const nul = await postJson(`${base}/api/v1/analyze/free`, sampleTrade({ asset: 'TS\u0000LA' }));
    assert.equal(nul.status, 200);
    assert.equal(nul.json.decision, 'deny');
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      const response = await postJson(`${base}/api/v1/analyze/free`, withExtra(JSON.stringify(sampleTrade()), '{"polluted":true}').replace('"x"', `"${key}"`));
      assert.equal(response.status, 422);
      assert.deepEqual(response.json.detail[0].loc, ['body', key]);
      assert.equal(response.json.detail[0].type, 'extra_forbidden');
    }
    // As in JSON.parse and FastAPI, the last of two equal keys counts.
    const duplicate = await postJson(`${base}/api/v1/analyze/free`, JSON.stringify(sampleTrade()).replace('"amount":2', '"amount":-1,"amount":3'));
    assert.equal(duplicate.status, 200);
    assert.equal(duplicate.json.calculated_notional_usd, 3 * duplicate.json.price_usd);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    await assertStillEvaluates();
  });
});

describe('MCP arguments', () => {
  it('refuses deep, oversized and ill-formed arguments with an error result, and keeps serving', async () => {
    const client = new Client({ name: 'hostile-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp-http/mcp`)));
    try {
      let deep: unknown = [];
      for (let level = 0; level < 2_000; level += 1) deep = [deep];
      const cases: [Record<string, unknown>, string, string][] = [
        [{ ...sampleTrade(), x: deep }, 'x', 'json_invalid'],
        [sampleTrade({ asset: 'TS\ud800' }), 'asset', 'string_unicode'],
        [sampleTrade({ amount: 1e31 }), 'amount', 'less_than_equal'],
      ];
      for (const [args, field, type] of cases) {
        const result = await client.callTool({ name: 'evaluate_trade', arguments: args });
        assert.equal(result.isError, true);
        const structured = result.structuredContent as { error: string; detail: { loc: unknown[]; type: string }[] };
        assert.equal(structured.error, 'invalid arguments');
        assert.deepEqual(structured.detail[0]!.loc, [field]);
        assert.equal(structured.detail[0]!.type, type);
      }
    } finally {
      await client.close();
    }
    await assertStillEvaluates();
  });
});

describe('bodies at and over the cap', () => {
  const CAP = 64 * 1024;

  it('reads a body exactly at the cap and refuses one byte more with 413', async () => {
    const padding = (length: number) => withExtra(JSON.stringify(sampleTrade()), `"${'a'.repeat(length)}"`);
    const at = padding(CAP - padding(0).length);
    assert.equal(Buffer.byteLength(at), CAP);
    assert.equal((await postJson(`${base}/api/v1/analyze/free`, at)).status, 422);
    const over = await postJson(`${base}/api/v1/analyze/free`, padding(CAP + 1 - padding(0).length));
    assert.equal(over.status, 413);
    assert.deepEqual(over.json, { detail: `Request body exceeds the limit of ${CAP} bytes`, code: 'body_too_large' });
  });

  it('lets a client still uploading a 5 MB chunked body read the 413', async () => {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const chunk = Buffer.alloc(64 * 1024, 'a');
      let sent = 0;
      const body = new ReadableStream({
        pull(controller) {
          if (sent >= 5_000_000) return controller.close();
          sent += chunk.length;
          controller.enqueue(chunk);
        },
      });
      const response = await fetch(`${base}/api/v1/analyze/free`, { method: 'POST', body, duplex: 'half', headers: { 'content-type': 'application/json' } } as RequestInit);
      assert.equal(response.status, 413);
      assert.deepEqual(await response.json(), { detail: `Request body exceeds the limit of ${CAP} bytes`, code: 'body_too_large' });
    }
    await assertStillEvaluates();
  });
});

/** Writes raw bytes on a fresh socket; resolves with what came back once the server closes or `waitMs` passes. */
function rawExchange(bytes: string, waitMs = 3_000): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closed: false });
    }, waitMs);
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closed: true });
    });
    socket.write(bytes, 'latin1');
  });
}

describe('request framing', () => {
  it('refuses two different Content-Length values with 400 and closes', async () => {
    const body = JSON.stringify(sampleTrade());
    const head = `POST /api/v1/analyze/free HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nContent-Length: 2\r\n\r\n`;
    const answer = await rawExchange(head + body);
    assert.match(answer.text, /^HTTP\/1\.1 400 Bad Request\r\n/);
    assert.match(answer.text, /\{"detail":"Conflicting Content-Length headers","code":"conflicting_content_length"\}$/);
    assert.ok(answer.closed);
    const same = await rawExchange(head.replace('Content-Length: 2', `Content-Length: ${body.length}`) + body, 1_000);
    assert.match(same.text, /^HTTP\/1\.1 200 OK\r\n/, 'a repeated equal length is one length');
  });

  it('answers a request target over 2 KB with 414 and closes', async () => {
    const answer = await rawExchange(`GET /api/v1/assets?pad=${'a'.repeat(3_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    assert.match(answer.text, /^HTTP\/1\.1 414 URI Too Long\r\n/);
    assert.match(answer.text, /\{"detail":"Request target exceeds the limit of 2048 bytes","code":"uri_too_long"\}$/);
    assert.ok(answer.closed);
    const unknown = await rawExchange(`GET /${'b'.repeat(3_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    assert.match(unknown.text, /^HTTP\/1\.1 414 /);
  });

  it('survives malformed heads, NULs in the path and header floods', async () => {
    const heads = [
      'GET /healthz HTTP/1.1\nHost: x\n\n',
      'GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\u0000b\r\n\r\n',
      'GET /healthz HTTP/1.1\r\nHost: x\r\nX A: b\r\n\r\n',
      'GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n',
      'GET /heal\u0000thz HTTP/1.1\r\nHost: x\r\n\r\n',
      `GET /healthz HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 200 }, (_, i) => `X-H${i}: v\r\n`).join('')}\r\n`,
      `GET /${'c'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    ];
    const answers = await Promise.all(heads.map((head) => rawExchange(head, 500)));
    for (const answer of answers) assert.doesNotMatch(answer.text, /^HTTP\/1\.1 [25]\d\d /, 'never a success or a server error');
    await assertStillEvaluates();
  });
});

describe('after everything above', () => {
  it('is the same process, and a normal evaluation is answered', async () => {
    await assertStillEvaluates();
    const health = await send('GET', `${base}/healthz`);
    assert.equal(health.status, 200);
  });
});
