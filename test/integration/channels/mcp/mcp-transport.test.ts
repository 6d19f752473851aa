// The MCP endpoint's HTTP answers byte for byte over loopback: what the SDK's streamable-HTTP transport answers, which clients rely on.
import assert from 'node:assert/strict';
import { Agent } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { SERVICE, VERSIONS } from '../../../../src/catalogue/published-facts.js';
import { ManualClock } from '../../../support/manual-clock.js';
import { postJson, send, startTestService, type HttpResult, type TestService } from '../../../support/service.js';

let running: TestService;
let url: string;

before(async () => {
  running = await startTestService({ REGISTRY_FILE: '', RATE_LIMIT_IP_MCP: '1000', MCP_SESSIONS_PER_IP: '50' });
  url = `${running.base}/mcp-http/mcp`;
});
after(() => running.stop());

const ACCEPT = 'application/json, text/event-stream';

function initialize(protocolVersion: string, id: number | string = 1) {
  return { jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 't', version: '1' } } };
}

/** `from`: a connection from another loopback address (127.0.0.2, ...), i.e. another client IP. */
function post(body: unknown, headers: Record<string, string> = {}, from: Agent | false = false, to = url): Promise<HttpResult> {
  return postJson(to, body, { accept: ACCEPT, ...headers }, from);
}

/** A session that has said notifications/initialized, and the headers every later request carries. */
async function session(from: Agent | false = false, to = url): Promise<Record<string, string>> {
  const opened = await post(initialize('2025-06-18'), {}, from, to);
  assert.equal(opened.status, 200, opened.text);
  const headers = { 'mcp-session-id': opened.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-06-18' };
  assert.equal((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers, from, to)).status, 202);
  return headers;
}

/** Connections from one loopback address; destroyed by the suite that made it. */
const agents: Agent[] = [];
function clientAt(address: string): Agent {
  const agent = new Agent({ localAddress: address });
  agents.push(agent);
  return agent;
}
after(() => agents.forEach((agent) => agent.destroy()));

function fault(status: number, code: number, message: string) {
  return { status, body: { jsonrpc: '2.0', error: { code, message }, id: null } };
}

function answer(result: HttpResult) {
  return { status: result.status, body: result.json };
}

describe('MCP initialize', () => {
  it('starts a session: the id in mcp-session-id, the whole result as JSON', async () => {
    const opened = await post(initialize('2025-06-18', 'init-1'));
    assert.equal(opened.status, 200);
    assert.equal(opened.headers.get('content-type'), 'application/json');
    assert.match(opened.headers.get('mcp-session-id') ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.deepEqual(opened.json, {
      jsonrpc: '2.0',
      id: 'init-1',
      result: {
        protocolVersion: '2025-06-18',
        capabilities: { logging: {}, tools: { listChanged: false } },
        serverInfo: { name: SERVICE.name, version: VERSIONS.service },
        instructions: 'Call get_supported_assets to resolve symbols, then evaluate_trade before every trade. deny or an error means do not trade.',
      },
    });
  });

  it('answers 2025-06-18 to a newer or unknown version and keeps an older one it speaks', async () => {
    const cases = [
      ['2025-11-25', '2025-06-18'], ['2099-01-01', '2025-06-18'], ['2024-10-07', '2025-06-18'],
      ['2025-06-18', '2025-06-18'], ['2025-03-26', '2025-03-26'], ['2024-11-05', '2024-11-05'],
    ];
    for (const [asked, answered] of cases) {
      const opened = await post(initialize(asked));
      assert.equal(opened.json.result.protocolVersion, answered, asked);
    }
  });

  it('refuses a second initialize on a session and an initialize in a batch', async () => {
    const headers = await session();
    assert.deepEqual(answer(await post(initialize('2025-06-18'), headers)), fault(400, -32600, 'Invalid Request: Server already initialized'));
    const batch = [initialize('2025-06-18'), { jsonrpc: '2.0', id: 2, method: 'ping' }];
    assert.deepEqual(answer(await post(batch)), fault(400, -32600, 'Invalid Request: Only one initialization request is allowed'));
  });

  it('refuses anything else without a session, and leaves no session behind', async () => {
    // One session per IP: were a refused request to leave one, the initialize after it would be refused.
    const own = await startTestService({ REGISTRY_FILE: '', MCP_SESSIONS_PER_IP: '1' });
    try {
      const ownUrl = `${own.base}/mcp-http/mcp`;
      const notInitialized = fault(400, -32000, 'Bad Request: Server not initialized');
      const ownPost = (body: unknown) => postJson(ownUrl, body, { accept: ACCEPT });
      assert.deepEqual(answer(await ownPost({ jsonrpc: '2.0', id: 1, method: 'tools/list' })), notInitialized);
      assert.deepEqual(answer(await ownPost({ jsonrpc: '2.0', method: 'notifications/initialized' })), notInitialized);
      assert.deepEqual(answer(await ownPost('[')), fault(400, -32700, 'Parse error: Invalid JSON'));
      assert.equal((await ownPost(initialize('2025-06-18'))).status, 200);
    } finally {
      await own.stop();
    }
  });
});

describe('MCP messages on a session', () => {
  it('answers a notification with 202 and no body', async () => {
    const headers = await session();
    const accepted = await post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 99 } }, headers);
    assert.deepEqual([accepted.status, accepted.text], [202, '']);
    const empty = await post([], headers);
    assert.deepEqual([empty.status, empty.text], [202, '']);
  });

  it('answers a batch with one array of responses in the order of its requests', async () => {
    const headers = await session();
    const batch = [
      { jsonrpc: '2.0', id: 'b', method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } },
      { jsonrpc: '2.0', id: 7, method: 'no/such/method' },
    ];
    const answered = await post(batch, headers);
    assert.equal(answered.status, 200);
    assert.equal(answered.headers.get('mcp-session-id'), headers['mcp-session-id']);
    assert.deepEqual(answered.json, [
      { jsonrpc: '2.0', id: 'b', result: {} },
      { jsonrpc: '2.0', id: 7, error: { code: -32601, message: 'Method not found' } },
    ]);
    const single = await post([{ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 2 } }, { jsonrpc: '2.0', id: 3, method: 'ping' }], headers);
    assert.deepEqual(single.json, { jsonrpc: '2.0', id: 3, result: {} }, 'one request in a batch is answered with one object');
  });

  it('calls a tool', async () => {
    const headers = await session();
    const called = await post({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'get_supported_assets', arguments: {} } }, headers);
    assert.equal(called.status, 200);
    assert.deepEqual(Object.keys(called.json), ['result', 'jsonrpc', 'id']);
    assert.equal(called.json.result.structuredContent.assets[0].symbol, running.service.registry.assets[0].symbol);
  });

  it('answers a plain tools/call itself exactly as the SDK server answers one it handles (with _meta), byte for byte', async () => {
    const headers = await session();
    const call = (params: Record<string, unknown>) => post({ jsonrpc: '2.0', id: 9, method: 'tools/call', params }, headers);
    for (const params of [
      { name: 'get_supported_assets', arguments: {} },
      { name: 'get_supported_assets' },
      { name: 'no_such_tool', arguments: {} },
      { name: 'check_token_safety', arguments: { contract_address: 'not an address' } },
    ]) {
      const direct = await call(params);
      const viaSdk = await call({ ...params, _meta: {} });
      assert.equal(direct.status, 200);
      assert.equal(direct.text, viaSdk.text, `${JSON.stringify(params)}: the same answer both ways`);
    }
  });

  it('hands the SDK server a tools/call it must check itself: its schema refuses a name that is no string, arguments that are no object', async () => {
    const headers = await session();
    for (const [params, expected] of [[{ name: 7 }, /expected string/], [{ name: 'get_supported_assets', arguments: [1] }, /expected record/]] as const) {
      const answered = await post({ jsonrpc: '2.0', id: 4, method: 'tools/call', params }, headers);
      assert.equal(answered.status, 200);
      assert.equal(answered.json.error.code, -32603, `${JSON.stringify(params)}: ${answered.text}`);
      assert.match(answered.json.error.message, expected);
    }
  });

  it('reads a body with a byte order mark as the SDK does', async () => {
    const headers = await session();
    const answered = await post(`\ufeff${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })}`, headers);
    assert.deepEqual(answer(answered), { status: 200, body: { jsonrpc: '2.0', id: 1, result: {} } });
  });
});

describe('MCP refusals', () => {
  it('refuses JSON it cannot parse, and JSON that is no JSON-RPC message, with -32700', async () => {
    const headers = await session();
    assert.deepEqual(answer(await post('{"jsonrpc":', headers)), fault(400, -32700, 'Parse error: Invalid JSON'));
    assert.deepEqual(answer(await post('', headers)), fault(400, -32700, 'Parse error: Invalid JSON'));
    assert.deepEqual(answer(await post('{"jsonrpc":', {})), fault(400, -32700, 'Parse error: Invalid JSON'));
    for (const bad of [{ id: 1, method: 'ping' }, { jsonrpc: '2.0', id: 1.5, method: 'ping' }, [{ jsonrpc: '2.0', id: 1, method: 'ping' }, 3]]) {
      assert.deepEqual(answer(await post(bad, headers)), fault(400, -32700, 'Parse error: Invalid JSON-RPC message'), JSON.stringify(bad));
    }
  });

  it('refuses a batch of more than 100 messages', async () => {
    const headers = await session();
    const batch = Array.from({ length: 101 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' }));
    assert.deepEqual(answer(await post(batch, headers)), fault(400, -32600, 'Invalid Request: Batch must not exceed 100 messages'));
  });

  it('refuses a protocol version header the SDK does not know', async () => {
    const headers = await session();
    const refused = await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { ...headers, 'mcp-protocol-version': '1999-01-01' });
    const supported = SUPPORTED_PROTOCOL_VERSIONS.join(', ');
    assert.deepEqual(answer(refused), fault(400, -32000, `Bad Request: Unsupported protocol version: 1999-01-01 (supported versions: ${supported})`));
    const older = await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { ...headers, 'mcp-protocol-version': '2025-03-26' });
    assert.equal(older.status, 200);
  });

  it('refuses a client that does not accept both JSON and an event stream, or does not send JSON', async () => {
    const headers = await session();
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    const notAcceptable = fault(406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
    assert.deepEqual(answer(await post(ping, { ...headers, accept: 'application/json' })), notAcceptable);
    assert.deepEqual(answer(await post(initialize('2025-06-18'), { accept: 'text/event-stream' })), notAcceptable);
    const unsupported = fault(415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    assert.deepEqual(answer(await post(ping, { ...headers, 'content-type': 'text/plain; a=application/json' })), unsupported);
    assert.equal((await post(ping, { ...headers, 'content-type': 'Application/JSON; charset=utf-8' })).status, 200);
  });

  it('ends a session on DELETE; the id is then unknown', async () => {
    const headers = await session();
    const ended = await send('DELETE', url, undefined, headers);
    assert.deepEqual([ended.status, ended.text], [200, '']);
    const expired = fault(404, -32001, 'Session not found or expired; initialize a new session');
    assert.deepEqual(answer(await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, headers)), expired);
    assert.deepEqual(answer(await send('DELETE', url, undefined, headers)), expired);
    assert.deepEqual(answer(await send('DELETE', url)), fault(400, -32000, 'Bad Request: Mcp-Session-Id header is required'));
  });
});

describe('MCP sessions and client addresses', () => {
  const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
  const expired = fault(404, -32001, 'Session not found or expired; initialize a new session');

  it('answers a session id used from another address as an unknown session, and keeps the session for its own', async () => {
    const headers = await session();
    const elsewhere = clientAt('127.0.0.2');
    assert.deepEqual(answer(await post(ping, headers, elsewhere)), expired);
    assert.deepEqual(answer(await send('DELETE', url, undefined, headers, elsewhere)), expired);
    assert.deepEqual(answer(await post(ping, headers)), { status: 200, body: { jsonrpc: '2.0', id: 1, result: {} } });
  });

  it('caps sessions across all addresses (MCP_SESSIONS_MAX): a newcomer displaces the idlest session of the address holding the most; one holding as many as any gets 429', async () => {
    const clock = new ManualClock();
    const capped = await startTestService(
      { REGISTRY_FILE: '', RATE_LIMIT_IP_MCP: '1000', MCP_SESSIONS_PER_IP: '3', MCP_SESSIONS_MAX: '4' }, undefined, { now: clock.now },
    );
    try {
      const to = `${capped.base}/mcp-http/mcp`;
      const second = clientAt('127.0.0.2');
      const idlest = await session(false, to);
      clock.advance(100_000);
      const fresher = await session(false, to);
      await session(second, to);
      await session(second, to);
      // Full, and 127.0.0.1 holds as many as any other address: it waits for a session to idle out.
      const refused = await post(initialize('2025-06-18'), {}, false, to);
      assert.deepEqual(answer(refused), fault(429, -32000,
        'Too many MCP sessions on this service (at most 4), and this client holds as many as any other; end one with DELETE or retry after 200 s'));
      assert.equal(refused.headers.get('retry-after'), '200');
      // A newcomer gets the place of the idlest session of the addresses holding the most.
      await session(clientAt('127.0.0.3'), to);
      assert.deepEqual(answer(await post(ping, idlest, false, to)), expired);
      assert.deepEqual(answer(await post(ping, fresher, false, to)), { status: 200, body: { jsonrpc: '2.0', id: 1, result: {} } });
    } finally {
      await capped.stop();
    }
  });
});
