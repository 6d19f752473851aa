// A crowd of MCP sessions from many loopback addresses, pinging, cannot keep an honest client out of a full table (issue 39).
import assert from 'node:assert/strict';
import { Agent } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ManualClock } from '../../../support/manual-clock.js';
import { postJson, startTestService, type HttpResult, type TestService } from '../../../support/service.js';

const MAX = 50;
const PER_IP = 5;
/** Ten addresses holding five sessions each fill the table; Linux answers on all of 127/8. */
const CROWD = Array.from({ length: MAX / PER_IP }, (_, index) => `127.0.0.${10 + index}`);
const ACCEPT = 'application/json, text/event-stream';
const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
const expired = { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found or expired; initialize a new session' }, id: null };

const clock = new ManualClock();
let running: TestService;
let url: string;
const agents = new Map<string, Agent>();

before(async () => {
  running = await startTestService(
    { REGISTRY_FILE: '', RATE_LIMIT_IP_MCP: '100000', MCP_SESSIONS_PER_IP: String(PER_IP), MCP_SESSIONS_MAX: String(MAX) },
    undefined,
    { now: clock.now },
  );
  url = `${running.base}/mcp-http/mcp`;
  for (const address of CROWD) agents.set(address, new Agent({ localAddress: address, keepAlive: true }));
});
after(async () => {
  agents.forEach((agent) => agent.destroy());
  await running.stop();
});

interface CrowdSession {
  address: string;
  headers: Record<string, string>;
}

function post(address: string, body: unknown, headers: Record<string, string> = {}): Promise<HttpResult> {
  return postJson(url, body, { accept: ACCEPT, ...headers }, agents.get(address)!);
}

async function open(address: string): Promise<CrowdSession> {
  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'crowd', version: '1' } } };
  const opened = await post(address, initialize);
  assert.equal(opened.status, 200, `${address}: ${opened.text}`);
  const headers = { 'mcp-session-id': opened.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-06-18' };
  assert.equal((await post(address, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).status, 202);
  return { address, headers };
}

/** Every crowd session pings once, a second apart on the service's clock; the sessions that were closed, by their answer. */
async function crowdPings(crowd: CrowdSession[]): Promise<CrowdSession[]> {
  const closed: CrowdSession[] = [];
  for (const member of crowd) {
    clock.advance(1_000);
    const answer = await post(member.address, ping, member.headers);
    if (answer.status === 404) {
      assert.deepEqual(answer.json, expired);
      closed.push(member);
    } else assert.deepEqual({ status: answer.status, body: answer.json }, { status: 200, body: { jsonrpc: '2.0', id: 1, result: {} } });
  }
  return closed;
}

/** The honest client's work: a tool call answered with a result, not an error. */
async function listsAssets(client: Client): Promise<void> {
  const answer = await client.callTool({ name: 'get_supported_assets', arguments: {} });
  assert.notEqual(answer.isError, true, JSON.stringify(answer));
  assert.ok(Array.isArray((answer.structuredContent as { assets?: unknown }).assets), JSON.stringify(answer));
}

describe('MCP sessions under a crowd', () => {
  it('admits an honest client to a table a pinging crowd fills, closes one crowd session for it, and keeps it working while the crowd reopens', async () => {
    let crowd: CrowdSession[] = [];
    for (const address of CROWD) for (let n = 0; n < PER_IP; n += 1) crowd.push(await open(address));
    assert.deepEqual(await crowdPings(crowd), []);

    // The honest client arrives from 127.0.0.1 with the official SDK client while every crowd session is fresh.
    const honest = new Client({ name: 'honest', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(url));
    await honest.connect(transport);
    try {
      await listsAssets(honest);
      // Exactly one crowd session made room, and its next call is answered as an expired session.
      const closed = await crowdPings(crowd);
      assert.equal(closed.length, 1);

      // The crowd keeps pinging and reopens whatever it loses; each reopening closes another crowd session, never the honest one.
      for (let round = 0; round < 5; round += 1) {
        crowd = crowd.filter((member) => !closed.includes(member));
        for (const lost of closed.splice(0)) crowd.push(await open(lost.address));
        closed.push(...(await crowdPings(crowd)));
        assert.equal(closed.length, 1, `round ${round}: one crowd session gave way to the reopened one`);
        clock.advance(1_000);
        await honest.ping();
        await listsAssets(honest);
      }
    } finally {
      await transport.terminateSession();
      await honest.close();
    }
  });
});
