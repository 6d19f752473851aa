// The bench's echo servers over loopback: each sends the body back; the edge row's floor also reads and names the
// client address, as the service's edge reads it for every answer's log line (bench/echo-server.ts).
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { spawnNode, startOutput, stop } from '../../../bench/harness.js';

const ECHO = fileURLToPath(new URL('../../../bench/echo-server.js', import.meta.url));

async function startEcho(args: string[]): Promise<{ child: ChildProcess; url: string }> {
  const child = await spawnNode(ECHO, ['0', ...args], {}, /listening \d+/);
  const port = /listening (\d+)/.exec(startOutput(child))![1];
  return { child, url: `http://127.0.0.1:${port}/echo` };
}

describe('bench/echo-server.js', () => {
  const started: ChildProcess[] = [];
  after(() => Promise.all(started.map(stop)));

  const send = (url: string) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"wallet":"0x01"}' });

  it('sends the body back and names no client address', async () => {
    const echo = await startEcho([]);
    started.push(echo.child);
    const answer = await send(echo.url);
    assert.equal(answer.status, 200);
    assert.equal(await answer.text(), '{"wallet":"0x01"}');
    assert.equal(answer.headers.get('x-client-address'), null);
  });

  it('with `address`, also reads the client address and names it', async () => {
    const echo = await startEcho(['0', 'address']);
    started.push(echo.child);
    const answer = await send(echo.url);
    assert.equal(answer.status, 200);
    assert.equal(await answer.text(), '{"wallet":"0x01"}');
    assert.equal(answer.headers.get('x-client-address'), '127.0.0.1');
  });
});
