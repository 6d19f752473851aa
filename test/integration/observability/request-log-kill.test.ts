// A refusal's log line is not held back with the allows' batch: killed right after the answer, the service has already written it.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { freePort } from '../../support/redis-server.js';
import { postJson, SAMPLE_REGISTRY, sampleTrade, send, type HttpResult } from '../../support/service.js';
import { startServiceProcess } from '../../support/service-process.js';
import { useTempDirs } from '../../support/temp-dirs.js';

const tempDir = useTempDirs('guardrail-log-kill-');

/** The request lines of a log, by request id. */
function requestLines(output: string): Map<string, Record<string, unknown>> {
  const lines = output.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  return new Map(lines.filter((line) => line.msg === 'request').map((line) => [String(line.req_id), line]));
}

describe('the request log when the service is killed (SIGKILL) right after answering', () => {
  it('holds the line of every refusal already answered, each at warn with its status', async () => {
    const service = await startServiceProcess({ PORT: String(await freePort()), DATA_DIR: await tempDir(), REGISTRY_FILE: SAMPLE_REGISTRY, RPC_URL: undefined });
    const closed = once(service.child, 'close');
    // An allow first: its line may wait for the batch (docs/operations.md "Watch it run").
    const allow = await postJson(`${service.base}/api/v1/analyze/free`, sampleTrade());
    const refusals: HttpResult[] = [];
    // Refusals an operator watches for: a body that is not JSON (415), a bearer route without a token (401).
    refusals.push(await send('POST', `${service.base}/api/v1/analyze/free`, JSON.stringify(sampleTrade()), { 'content-type': 'text/plain' }));
    refusals.push(await postJson(`${service.base}/api/v1/analyze/trade`, sampleTrade()));
    service.child.kill('SIGKILL');
    await closed;
    assert.equal(allow.status, 200);
    assert.deepEqual(refusals.map((answer) => answer.status), [415, 401]);
    const lines = requestLines(service.output());
    for (const answer of refusals) {
      const id = answer.headers.get('x-request-id')!;
      const line = lines.get(id);
      assert.ok(line, `the log holds the line of request ${id} (${answer.status}), answered before the kill`);
      assert.deepEqual([line.level, line.status], ['warn', answer.status]);
    }
  });
});
