// The A2A channel driven by the SDK's stock client (its default ClientFactory, from the agent card) against the service on the devnet.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ClientFactory } from '@a2a-js/sdk/client';
import { TaskState } from '@a2a-js/sdk';
import { dataMessage, sendA2A } from '../../../support/a2a-client.js';
import { OPEN_MARKET_MS } from '../../../support/manual-clock.js';
import { getJson, postJson, sampleTrade, startTestService, type TestService } from '../../../support/service.js';

let running: TestService;
let offline: TestService;

before(async () => {
  running = await startTestService({ REGISTRY_FILE: '', RATE_LIMIT_IP_A2A: '1000' }, undefined, { now: () => OPEN_MARKET_MS });
  // Offline: the sample registry, no chain node.
  offline = await startTestService();
});
after(async () => {
  await running?.stop();
  await offline?.stop();
});

const WALLET = '0x00000000000000000000000000000000000000a2';
const tsla = () => running.service.registry.bySymbol('TSLA')!.contract_address;
const trade = (patch: Record<string, unknown> = {}) => ({ wallet: WALLET, asset: 'TSLA', contract_address: tsla(), side: 'buy', amount: 1, ...patch });
const records = async (wallet: string) => (await getJson(`${running.base}/api/v1/audit/wallet/${wallet}`)).json.records as Array<Record<string, unknown>>;
/** A JSON-RPC call as any client would send it, with the A2A-Version header it names (none: a 0.3 client). */
const rpc = (method: string, params: unknown, version?: string) =>
  postJson(`${running.base}/a2a`, { jsonrpc: '2.0', id: 7, method, params }, version ? { 'a2a-version': version } : {});

describe('the agent card', () => {
  it('leads the stock client to the endpoints it lists: HTTP+JSON under /v1 first, JSON-RPC at /a2a, the three skills served', async () => {
    const card = (await getJson(`${running.base}/.well-known/agent-card.json`)).json;
    const url = `${running.base}/a2a`;
    assert.deepEqual([card.protocolVersion, card.url, card.preferredTransport], ['0.3.0', running.base, 'HTTP+JSON']);
    assert.deepEqual(card.supportedInterfaces, [
      { url: `${running.base}/v1`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: '' },
      { url, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' },
      { url, protocolBinding: 'JSONRPC', protocolVersion: '0.3', tenant: '' },
    ]);
    assert.deepEqual(card.skills.map((skill: { id: string }) => skill.id), ['evaluate-trade', 'token-safety', 'asset-registry']);
    const client = await new ClientFactory().createFromUrl(running.base);
    assert.equal((await client.getAgentCard()).name, card.name);
  });
});

describe('evaluate-trade', () => {
  it('answers a TradeRequest with a completed task whose verdict artifact names an audit record on channel a2a', async () => {
    const answer = await sendA2A(running.base, trade({ request_id: 'a2a-1' }));
    assert.equal(answer.kind, 'task');
    if (answer.kind !== 'task') return;
    assert.equal(answer.task.status?.state, TaskState.TASK_STATE_COMPLETED);
    assert.equal(answer.artifact, 'verdict');
    const verdict = answer.data;
    assert.deepEqual([verdict.decision, verdict.tier, verdict.max_trade_usd, verdict.request_id], ['allow', 1, 5000, 'a2a-1']);
    const [record] = await records(WALLET);
    assert.deepEqual([record!.channel, record!.seq, record!.hash, record!.decision], ['a2a', verdict.audit_seq, verdict.audit_hash, 'allow']);
  });

  it('gives the verdict analyze/free gives for the same trade, at Tier 1', async () => {
    const wallet = '0x00000000000000000000000000000000000000a3';
    const body = trade({ wallet, amount: 20 });
    const a2a = await sendA2A(running.base, body);
    const rest = (await postJson(`${running.base}/api/v1/analyze/free`, body)).json;
    assert.equal(a2a.kind, 'task');
    const strip = ({ audit_hash: _h, audit_seq: _s, ...verdict }: Record<string, unknown>) => verdict;
    assert.deepEqual(strip(a2a.kind === 'task' ? a2a.data : {}), strip(rest));
  });

  it('refuses a bad TradeRequest with INVALID_PARAMS naming the field, and records nothing', async () => {
    const wallet = '0x00000000000000000000000000000000000000a4';
    const answer = await sendA2A(running.base, trade({ wallet, amount: -1, side: 'hold' }), undefined, 'JSONRPC');
    assert.deepEqual(answer.kind === 'error' && [answer.name, answer.rpcCode, answer.message, answer.code], [
      'RequestMalformedError', -32602, 'invalid TradeRequest: see detail', 'validation_failed',
    ]);
    const detail = JSON.parse(answer.kind === 'error' ? answer.metadata.detail! : '[]');
    assert.deepEqual(detail.map((issue: { loc: string[] }) => issue.loc), [['side'], ['amount']]);
    assert.deepEqual(await records(wallet), []);
  });

  it('refuses a message that carries no data part, or names a skill the card does not list', async () => {
    const client = await new ClientFactory().createFromUrl(running.base);
    const text = { ...dataMessage({}), parts: [{ content: { $case: 'text' as const, value: 'buy 1 TSLA' }, metadata: undefined, filename: '', mediaType: 'text/plain' }] };
    await assert.rejects(client.sendMessage({ message: text, configuration: undefined, metadata: undefined, tenant: '' }), {
      name: 'RequestMalformedError', message: 'The message must carry exactly one part, a data part (application/json) holding the evaluate-trade input.',
    });
    const unknown = await sendA2A(running.base, {}, 'simulate-balance', 'JSONRPC');
    assert.deepEqual(unknown.kind === 'error' && [unknown.rpcCode, unknown.message], [-32602, 'metadata.skill must be one of evaluate-trade, token-safety, asset-registry.']);
    const overRest = await sendA2A(running.base, {}, 'simulate-balance');
    assert.deepEqual(overRest.kind === 'error' && [overRest.status, overRest.message], [400, 'metadata.skill must be one of evaluate-trade, token-safety, asset-registry.']);
  });
});

describe('token-safety and asset-registry', () => {
  it('token-safety answers the report REST answers: the devnet honeypot is danger', async () => {
    const honeypot = running.service.chain.devnet!.contracts.hostile.honeypot;
    const answer = await sendA2A(running.base, { contract_address: honeypot }, 'token-safety');
    assert.equal(answer.kind === 'task' && answer.artifact, 'token-safety');
    const rest = (await postJson(`${running.base}/api/v1/token-safety`, { contract_address: honeypot })).json;
    assert.deepEqual(answer.kind === 'task' && answer.data, rest);
    assert.deepEqual([rest.severity, rest.is_honeypot], ['danger', true]);
  });

  it('asset-registry lists the registry as GET /api/v1/assets does', async () => {
    const answer = await sendA2A(running.base, {}, 'asset-registry');
    const assets = (await getJson(`${running.base}/api/v1/assets`)).json;
    assert.deepEqual(answer.kind === 'task' && [answer.artifact, answer.data], ['assets', { assets }]);
  });

  it('token-safety without a chain node is an error with chain_not_configured, never a report', async () => {
    const answer = await sendA2A(offline.base, { contract_address: sampleTrade().contract_address }, 'token-safety', 'JSONRPC');
    assert.deepEqual(answer.kind === 'error' && [answer.rpcCode, answer.code], [-32603, 'chain_not_configured']);
    assert.match(answer.kind === 'error' ? answer.message : '', /do not assume the token is safe$/);
  });
});

describe('what the card says is not offered', () => {
  it('answers a 0.3 client (no A2A-Version) at the same url with a 0.3 task', async () => {
    const message = { kind: 'message', messageId: 'legacy-1', role: 'user', parts: [{ kind: 'data', data: trade({ wallet: '0x00000000000000000000000000000000000000a5' }) }] };
    const { status, json } = await rpc('message/send', { message });
    assert.equal(status, 200);
    assert.deepEqual([json.result.kind, json.result.status.state, json.result.artifacts[0].name], ['task', 'completed', 'verdict']);
    assert.equal(json.result.artifacts[0].parts[0].kind, 'data');
    assert.equal(typeof json.result.artifacts[0].parts[0].data.audit_seq, 'number');
  });

  it('refuses streaming, task reads and push notifications with their A2A errors', async () => {
    const message = { messageId: 'm', role: 'ROLE_USER', parts: [{ data: trade() }] };
    const codes = await Promise.all([
      rpc('SendStreamingMessage', { message }, '1.0'),
      rpc('GetTask', { id: 'any' }, '1.0'),
      rpc('CreateTaskPushNotificationConfig', { taskId: 'any', url: 'https://example.com' }, '1.0'),
    ]);
    assert.deepEqual(codes.map((answer) => [answer.status, answer.json.error.code]), [[200, -32004], [200, -32001], [200, -32003]]);
    assert.deepEqual((await rpc('GetTask', { id: 'any' }, '2.0')).json.error.code, -32009);
  });

  it('answers bytes that are not JSON with a parse error, and GET with 405', async () => {
    const bad = await postJson(`${running.base}/a2a`, '{"jsonrpc":');
    assert.deepEqual([bad.status, bad.json], [200, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Invalid JSON payload.' } }]);
    const get = await getJson(`${running.base}/a2a`);
    assert.deepEqual([get.status, get.headers.get('allow')], [405, 'POST']);
  });
});

describe('the per-IP limit', () => {
  it('answers the third call in a window with 429 and Retry-After, as MCP does', async () => {
    const limitedService = await startTestService({ RATE_LIMIT_IP_A2A: '2' });
    try {
      for (let i = 0; i < 2; i += 1) assert.equal((await sendA2A(limitedService.base, {}, 'asset-registry')).kind, 'task');
      const limited = await postJson(`${limitedService.base}/a2a`, { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: {} }, { 'a2a-version': '1.0' });
      assert.deepEqual([limited.status, limited.json.code, limited.headers.get('retry-after'), limited.headers.get('x-ratelimit-limit')], [429, 'rate_limited', '60', '2']);
    } finally {
      await limitedService.stop();
    }
  });
});
