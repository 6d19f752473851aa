// A2A input the SDK cannot walk is bounded as a REST body is, and a 0.3 client gets the error's code and detail in `data` (issue 39).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sendA2A } from '../../../support/a2a-client.js';
import { postJson, sampleTrade, send, startTestService, type HttpResult, type TestService } from '../../../support/service.js';

let offline: TestService;

before(async () => {
  // The sample registry and its default prices, no chain node; one unproven evaluation per wallet per window.
  offline = await startTestService({ RATE_LIMIT_WALLET_TIER1: '1' });
});
after(() => offline.stop());

const ERROR_INFO = { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', domain: 'a2a-protocol.org' };
const DEPTH_ISSUE = { loc: ['params'], msg: 'JSON input nests deeper than 32 levels', type: 'json_invalid', ctx: { error: 'recursion limit exceeded', max_depth: 32 } };

/** A JSON-RPC body whose message metadata nests `levels` deep, written as text: the sender needs no recursion either. */
function deepMetadataBody(method: string, message: Record<string, unknown>, levels: number): string {
  const nested = `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
  return `{"jsonrpc":"2.0","id":7,"method":"${method}","params":{"message":${JSON.stringify(message).slice(0, -1)},"metadata":${nested}}}}`;
}

function post(body: string, version?: string): Promise<HttpResult> {
  return send('POST', `${offline.base}/a2a`, body, { 'content-type': 'application/json', ...(version ? { 'a2a-version': version } : {}) });
}

/** The depth issue's fields a client reads, without the bounded echo of the input. */
function issues(detail: string): unknown[] {
  return (JSON.parse(detail) as Array<Record<string, unknown>>).map(({ input: _input, ...issue }) => issue);
}

/** A 0.3 message/send of one data part; `skill` in its metadata. */
function legacySend(id: number, data: unknown, skill?: string): Promise<HttpResult> {
  const message = { kind: 'message', messageId: `legacy-${id}`, role: 'user', parts: [{ kind: 'data', data }], ...(skill ? { metadata: { skill } } : {}) };
  return postJson(`${offline.base}/a2a`, { jsonrpc: '2.0', id, method: 'message/send', params: { message } });
}

describe('a message nested past the REST edge\'s depth', () => {
  it('is refused with INVALID_PARAMS and the depth issue a REST body gets, on A2A 1.0 and 0.3, and the service goes on answering', async () => {
    const current = await post(deepMetadataBody('SendMessage', { messageId: 'm', role: 'ROLE_USER', parts: [{ data: {} }] }, 5_000), '1.0');
    assert.equal(current.status, 200);
    const { data: [info], ...error } = current.json.error;
    assert.deepEqual({ ...current.json, error }, { jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'invalid JSON-RPC request: see detail' } });
    assert.deepEqual({ ...info, metadata: { ...info.metadata, detail: issues(info.metadata.detail) } },
      { ...ERROR_INFO, reason: 'INVALID_PARAMS', metadata: { code: 'validation_failed', detail: [DEPTH_ISSUE] } });

    const legacy = await post(deepMetadataBody('message/send', { kind: 'message', messageId: 'm', role: 'user', parts: [{ kind: 'data', data: {} }] }, 5_000));
    assert.equal(legacy.status, 200);
    const { detail, ...data } = legacy.json.error.data;
    assert.deepEqual({ ...legacy.json, error: { ...legacy.json.error, data: { ...data, detail: issues(detail) } } },
      { jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'invalid JSON-RPC request: see detail', data: { code: 'validation_failed', detail: [DEPTH_ISSUE] } } });

    assert.equal((await sendA2A(offline.base, {}, 'asset-registry')).kind, 'task');
  });
});

describe('A2A 0.3 errors', () => {
  it('carry the catalogue code, the FastAPI detail and retry_after_seconds in data, as 1.0 carries them in its error info', async () => {
    const invalid = await legacySend(1, { ...sampleTrade(), amount: -1 });
    assert.deepEqual(invalid.json.error.data.code, 'validation_failed');
    assert.deepEqual(invalid.json.error.message, 'invalid TradeRequest: see detail');
    assert.deepEqual(JSON.parse(invalid.json.error.data.detail).map((issue: { loc: unknown; type: unknown }) => [issue.loc, issue.type]), [[['amount'], 'greater_than']]);

    const noChain = await legacySend(2, { contract_address: sampleTrade().contract_address }, 'token-safety');
    assert.deepEqual(noChain.json.error, {
      code: -32603,
      message: 'this capability needs a chain node; no token-safety result was produced; do not assume the token is safe',
      data: { code: 'chain_not_configured' },
    });

    const wallet = '0x00000000000000000000000000000000000003a0';
    assert.equal((await legacySend(3, sampleTrade({ wallet }))).json.result?.kind, 'task');
    const limited = await legacySend(4, sampleTrade({ wallet }));
    assert.deepEqual([limited.json.error.code, limited.json.error.data.code], [-32603, 'rate_limited']);
    assert.match(limited.json.error.data.retry_after_seconds, /^[1-9][0-9]*$/);
  });
});
