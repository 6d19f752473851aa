// A2A's HTTP+JSON binding, the card's preferred transport: the SDK's default client reaches it from the card at 1.0, its 0.3 client at 0.3, and JSON-RPC still answers (issue 43).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TaskState, type Task } from '@a2a-js/sdk';
import { LegacyRestTransport } from '@a2a-js/sdk/compat/v0_3/client';
import { dataMessage, sendA2A, sendA2AObserved } from '../../../support/a2a-client.js';
import { OPEN_MARKET_MS } from '../../../support/manual-clock.js';
import { getJson, postJson, sampleTrade, send, startTestService, type TestService } from '../../../support/service.js';

let running: TestService;
let offline: TestService;

before(async () => {
  running = await startTestService({ REGISTRY_FILE: '', RATE_LIMIT_IP_A2A: '1000' }, undefined, { now: () => OPEN_MARKET_MS });
  // The sample registry, no chain node; one unproven evaluation per wallet per window.
  offline = await startTestService({ RATE_LIMIT_WALLET_TIER1: '1' });
});
after(async () => {
  await running?.stop();
  await offline?.stop();
});

const ERROR_INFO = { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', domain: 'a2a-protocol.org' };
const tsla = () => running.service.registry.bySymbol('TSLA')!.contract_address;
const trade = (wallet: string, patch: Record<string, unknown> = {}) => ({ wallet, asset: 'TSLA', contract_address: tsla(), side: 'buy', amount: 1, ...patch });
const records = async (wallet: string) => (await getJson(`${running.base}/api/v1/audit/wallet/${wallet}`)).json.records as Array<Record<string, unknown>>;
/** An HTTP+JSON call as any client sends it; `version` the A2A-Version header (null: none, a 0.3 client). */
const rest = (method: string, path: string, body?: string, version: string | null = '1.0') =>
  send(method, `${running.base}/v1${path}`, body, { 'content-type': 'application/json', ...(version ? { 'a2a-version': version } : {}) });

describe('the agent card', () => {
  it('is the specification\'s: protocol 0.3.0, preferred transport HTTP+JSON at `url`, JSON-RPC at /a2a as the additional interface', async () => {
    const card = (await getJson(`${running.base}/.well-known/agent-card.json`)).json;
    const jsonRpc = `${running.base}/a2a`;
    assert.deepEqual([card.protocolVersion, card.url, card.preferredTransport], ['0.3.0', running.base, 'HTTP+JSON']);
    assert.deepEqual(card.additionalInterfaces, [{ url: running.base, transport: 'HTTP+JSON' }, { url: jsonRpc, transport: 'JSONRPC' }]);
    assert.deepEqual(card.supportedInterfaces, [
      { url: `${running.base}/v1`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: '' },
      { url: jsonRpc, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' },
      { url: jsonRpc, protocolBinding: 'JSONRPC', protocolVersion: '0.3', tenant: '' },
    ]);
  });
});

describe('a verdict on either binding', () => {
  it('the default ClientFactory, from the card, gets a verdict over HTTP+JSON at POST /v1/message:send, recorded on channel a2a', async () => {
    const wallet = '0x00000000000000000000000000000000000004a1';
    const { answer, urls } = await sendA2AObserved(running.base, trade(wallet, { request_id: 'rest-1' }));
    assert.deepEqual(urls, [`${running.base}/v1/message:send`]);
    assert.equal(answer.kind, 'task');
    if (answer.kind !== 'task') return;
    assert.deepEqual([answer.task.status?.state, answer.artifact], [TaskState.TASK_STATE_COMPLETED, 'verdict']);
    assert.deepEqual([answer.data.decision, answer.data.tier, answer.data.request_id], ['allow', 1, 'rest-1']);
    const [record] = await records(wallet);
    assert.deepEqual([record!.channel, record!.seq, record!.hash], ['a2a', answer.data.audit_seq, answer.data.audit_hash]);
  });

  it('a client forced to JSON-RPC gets the same verdict at /a2a, without touching HTTP+JSON', async () => {
    const body = (wallet: string) => trade(wallet, { amount: 20 });
    const overRest = await sendA2A(running.base, body('0x00000000000000000000000000000000000004a2'));
    const { answer: overRpc, urls } = await sendA2AObserved(running.base, body('0x00000000000000000000000000000000000004a3'), undefined, 'JSONRPC');
    assert.deepEqual(urls, []);
    const strip = (answer: typeof overRest) => {
      const { audit_hash: _h, audit_seq: _s, wallet: _w, ...verdict } = answer.kind === 'task' ? answer.data : {};
      return verdict;
    };
    assert.equal(overRpc.kind, 'task');
    assert.deepEqual(strip(overRpc), strip(overRest));
  });
});

describe('errors carry the code and the detail on both bindings', () => {
  it('an invalid TradeRequest: HTTP+JSON 400 INVALID_ARGUMENT, JSON-RPC -32602, each with validation_failed and the FastAPI detail', async () => {
    const wallet = '0x00000000000000000000000000000000000004a4';
    const bad = trade(wallet, { amount: -1, side: 'hold' });
    const overRest = await sendA2A(running.base, bad);
    const overRpc = await sendA2A(running.base, bad, undefined, 'JSONRPC');
    assert.deepEqual(overRest.kind === 'error' && [overRest.name, overRest.status, overRest.message, overRest.code],
      ['RequestMalformedError', 400, 'invalid TradeRequest: see detail', 'validation_failed']);
    assert.deepEqual(overRpc.kind === 'error' && [overRpc.name, overRpc.rpcCode, overRpc.message, overRpc.code],
      ['RequestMalformedError', -32602, 'invalid TradeRequest: see detail', 'validation_failed']);
    for (const answer of [overRest, overRpc]) {
      const detail = JSON.parse(answer.kind === 'error' ? answer.metadata.detail! : '[]');
      assert.deepEqual(detail.map((issue: { loc: string[] }) => issue.loc), [['side'], ['amount']]);
    }
    assert.deepEqual(await records(wallet), []);
  });

  it('no verdict over HTTP+JSON is the catalogue\'s status with its code: 429 with Retry-After for a full window, 503 without a chain node', async () => {
    const wallet = '0x00000000000000000000000000000000000004a5';
    assert.equal((await sendA2A(offline.base, sampleTrade({ wallet }))).kind, 'task');
    const limited = await send('POST', `${offline.base}/v1/message:send`, JSON.stringify({
      message: { messageId: 'm-limited', role: 'ROLE_USER', parts: [{ data: sampleTrade({ wallet }), mediaType: 'application/json' }] },
    }), { 'content-type': 'application/json', 'a2a-version': '1.0' });
    assert.equal(limited.status, 429);
    const retryAfter = limited.headers.get('retry-after');
    assert.match(retryAfter ?? '', /^[1-9][0-9]*$/);
    assert.deepEqual(limited.json, { error: {
      code: 429, status: 'RESOURCE_EXHAUSTED', message: `rate limited: 1 evaluations per 60 s for this wallet; retry after ${retryAfter} s`,
      details: [{ ...ERROR_INFO, reason: 'INTERNAL_ERROR', metadata: { code: 'rate_limited', retry_after_seconds: retryAfter } }],
    } });

    const noChain = await sendA2A(offline.base, { contract_address: sampleTrade().contract_address }, 'token-safety');
    assert.deepEqual(noChain.kind === 'error' && [noChain.status, noChain.code, noChain.message],
      [503, 'chain_not_configured', 'this capability needs a chain node; no token-safety result was produced; do not assume the token is safe']);
  });
});

describe('the rest of the binding', () => {
  it('refuses streaming, task reads and cancels as the card says, a version it does not serve, and bytes that are not JSON', async () => {
    const answers = await Promise.all([
      rest('POST', '/message:stream', '{}'),
      rest('GET', '/tasks/any-task'),
      rest('POST', '/tasks/any-task:cancel'),
      rest('GET', '/tasks'),
      rest('POST', '/message:send', '{}', '2.0'),
      rest('POST', '/message:send', '{"message":'),
    ]);
    assert.deepEqual(answers.map((answer) => [answer.status, answer.json.error.status, answer.json.error.details[0]?.reason]), [
      [400, 'FAILED_PRECONDITION', 'UNSUPPORTED_OPERATION'],
      [404, 'NOT_FOUND', 'TASK_NOT_FOUND'],
      [404, 'NOT_FOUND', 'TASK_NOT_FOUND'],
      [400, 'FAILED_PRECONDITION', 'UNSUPPORTED_OPERATION'],
      [400, 'FAILED_PRECONDITION', 'VERSION_NOT_SUPPORTED'],
      [400, 'INVALID_ARGUMENT', 'INVALID_PARAMS'],
    ]);
    assert.equal(answers[5]!.json.error.message, 'Invalid JSON payload.');
    // The service goes on answering.
    assert.equal((await postJson(`${running.base}/api/v1/analyze/free`, trade('0x00000000000000000000000000000000000004a6'))).status, 200);
  });
});

/**
 * The SDK's 0.3 HTTP+JSON client (`LegacyRestTransport`) at the card's top-level `url`, as an agent
 * that reads the card as 0.3 reaches it; `wire` notes each call's URL and A2A-Version header and the
 * last refusal's status and body, which the client turns into an error without the body's `data`.
 */
async function legacyRest(base: string) {
  const card = (await getJson(`${base}/.well-known/agent-card.json`)).json;
  assert.deepEqual([card.protocolVersion, card.preferredTransport], ['0.3.0', 'HTTP+JSON']);
  const wire: { calls: Array<{ url: string; version: string | null }>; status?: number; body?: Record<string, unknown> } = { calls: [] };
  const observed: typeof fetch = async (input, init) => {
    wire.calls.push({ url: String(input), version: new Headers(init?.headers).get('a2a-version') });
    const response = await fetch(input, init);
    if (!response.ok) [wire.status, wire.body] = [response.status, await response.clone().json()];
    return response;
  };
  const transport = new LegacyRestTransport({ endpoint: card.url, fetchImpl: observed });
  const sendData = (data: unknown) => transport.sendMessage({ message: dataMessage(data), configuration: undefined, metadata: undefined, tenant: '' });
  return { sendData, wire };
}

/** A 0.3 SendMessageRequest as the 0.3 binding's proto-JSON writes it, for plain fetch. */
const legacyBody = (data: unknown) => JSON.stringify({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', content: [{ data: { data } }] } });

describe('A2A 0.3 over HTTP+JSON, the binding the card\'s top-level fields advertise', () => {
  it('the SDK\'s 0.3 REST client, with no A2A-Version, gets the verdict at POST /v1/message:send, recorded on channel a2a', async () => {
    const wallet = '0x00000000000000000000000000000000000004b1';
    const { sendData, wire } = await legacyRest(running.base);
    const task = (await sendData(trade(wallet, { request_id: 'rest-03' }))) as Task;
    assert.deepEqual(wire.calls, [{ url: `${running.base}/v1/message:send`, version: null }]);
    assert.deepEqual([task.status?.state, task.artifacts[0]!.name], [TaskState.TASK_STATE_COMPLETED, 'verdict']);
    const verdict = (task.artifacts[0]!.parts[0]!.content as { value: Record<string, unknown> }).value;
    assert.deepEqual([verdict.decision, verdict.tier, verdict.request_id], ['allow', 1, 'rest-03']);
    const [record] = await records(wallet);
    assert.deepEqual([record!.channel, record!.seq, record!.hash], ['a2a', verdict.audit_seq, verdict.audit_hash]);
  });

  it('an invalid TradeRequest: 400 with the 0.3 error body, -32602 with validation_failed and the FastAPI detail in its data', async () => {
    const wallet = '0x00000000000000000000000000000000000004b2';
    const { sendData, wire } = await legacyRest(running.base);
    await assert.rejects(sendData(trade(wallet, { amount: -1, side: 'hold' })), { name: 'RequestMalformedError', message: 'invalid TradeRequest: see detail' });
    const body = wire.body as { code: number; message: string; data: { code: string; detail: string } };
    assert.deepEqual([wire.status, body.code, body.message, body.data.code], [400, -32602, 'invalid TradeRequest: see detail', 'validation_failed']);
    assert.deepEqual(JSON.parse(body.data.detail).map((issue: { loc: string[] }) => issue.loc), [['side'], ['amount']]);
    assert.deepEqual(await records(wallet), []);
  });

  it('no verdict is the catalogue\'s status: 429 with Retry-After, rate_limited and retry_after_seconds in the body\'s data', async () => {
    const wallet = '0x00000000000000000000000000000000000004b3';
    const post = (requestId: string) =>
      send('POST', `${offline.base}/v1/message:send`, legacyBody(sampleTrade({ wallet, request_id: requestId })), { 'content-type': 'application/json' });
    const first = await post('rest-03-plain');
    assert.deepEqual([first.status, first.json.task.status.state, first.json.task.artifacts[0].name], [200, 'TASK_STATE_COMPLETED', 'verdict']);
    assert.equal(first.json.task.artifacts[0].parts[0].data.data.request_id, 'rest-03-plain');
    const limited = await post('rest-03-limited');
    const retryAfter = limited.headers.get('retry-after');
    assert.equal(limited.status, 429);
    assert.match(retryAfter ?? '', /^[1-9][0-9]*$/);
    assert.deepEqual(limited.json, {
      code: -32603,
      message: `rate limited: 1 evaluations per 60 s for this wallet; retry after ${retryAfter} s`,
      data: { code: 'rate_limited', retry_after_seconds: retryAfter },
    });
  });

  it('answers task routes, streaming and a body that is not a SendMessageRequest in the 0.3 error body', async () => {
    const answers = await Promise.all([
      rest('POST', '/message:stream', legacyBody({}), null),
      rest('GET', '/tasks/any-task', undefined, null),
      rest('POST', '/tasks/any-task:cancel', undefined, null),
      rest('POST', '/message:send', '{"message":', null),
      rest('POST', '/message:send', JSON.stringify({ message: { messageId: 'm-role', role: 'user', content: [] } }), '0.3'),
    ]);
    assert.deepEqual(answers.map((answer) => [answer.status, answer.json.code, answer.json.message]), [
      [400, -32004, 'Streaming is not supported (capabilities.streaming is false); use message:send.'],
      [404, -32001, 'This agent keeps no tasks: each message is answered by a completed task in its response.'],
      [404, -32001, 'This agent keeps no tasks: each message is answered by a completed task in its response.'],
      [400, -32602, 'Invalid JSON payload.'],
      [400, -32602, 'message.role must be ROLE_USER or ROLE_AGENT; got "user".'],
    ]);
  });
});
