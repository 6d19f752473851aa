// The chain client's HTTP fetch against real servers on loopback: answers as viem reads them, kept-alive sockets,
// and every way a read can fail (refused, cut off, oversized, timed out) rejects, so the read fails closed.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ChainUnavailableError } from '../../../../src/facts/chain/errors.js';
import { nativeBalanceRead } from '../../../../src/facts/chain/multicall.js';
import { createChainClient } from '../../../../src/facts/chain/public-client.js';
import { ReadBatcher } from '../../../../src/facts/chain/read-batcher.js';
import { keepAliveFetch } from '../../../../src/facts/chain/rpc-fetch.js';
import { freePort } from '../../../../src/tools/devnet/free-port.js';

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;

let server: Server;
let url: string;
let handle: Handler;
/** The client port of every request the server saw, in order. */
const peers: number[] = [];

before(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      peers.push(request.socket.remotePort ?? 0);
      handle(request, Buffer.concat(chunks).toString('utf8'), response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rpc`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const post = (body: string) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body });

describe('keepAliveFetch', () => {
  it('sends the body and headers, and answers with the status, headers and text viem reads', async () => {
    handle = (request, body, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'x-seen': `${request.method} ${request.url} ${request.headers['content-type']}` });
      response.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: body }));
    };
    const answer = await keepAliveFetch()(url, post('{"ping":"é"}'));
    assert.equal(answer.ok, true);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('Content-Type'), 'application/json');
    assert.equal(answer.headers.get('X-Seen'), 'POST /rpc application/json');
    assert.equal(answer.headers.get('x-absent'), null);
    assert.deepEqual(JSON.parse(await answer.text()), { jsonrpc: '2.0', id: 1, result: '{"ping":"é"}' });
  });

  it('keeps the socket for the next request', async () => {
    handle = (_request, _body, response) => response.end('{}');
    const send = keepAliveFetch();
    const before = peers.length;
    for (let i = 0; i < 3; i++) await (await send(url, post('{}'))).text();
    const used = peers.slice(before);
    assert.equal(used.length, 3);
    assert.equal(new Set(used).size, 1, `one socket for three requests, not ports ${used.join(', ')}`);
  });

  it('answers an HTTP error as not ok, with its status and text', async () => {
    handle = (_request, _body, response) => {
      response.writeHead(503, 'Busy');
      response.end('try later');
    };
    const answer = await keepAliveFetch()(url, post('{}'));
    assert.deepEqual([answer.ok, answer.status, answer.statusText, await answer.text()], [false, 503, 'Busy', 'try later']);
  });

  it('rejects an answer over its size limit instead of buffering it', async () => {
    handle = (_request, _body, response) => response.end('x'.repeat(4096));
    await assert.rejects(keepAliveFetch(1024)(url, post('{}')), /over 1024 bytes/);
  });

  it('rejects when the server cuts the answer short', async () => {
    handle = (_request, _body, response) => {
      response.writeHead(200, { 'content-length': '100' });
      response.write('{"jsonrpc"');
      setImmediate(() => response.socket?.destroy());
    };
    await assert.rejects(keepAliveFetch()(url, post('{}')));
  });

  it('rejects when nothing listens, and when its signal aborts', async () => {
    await assert.rejects(keepAliveFetch()(`http://127.0.0.1:${await freePort()}/`, post('{}')), /ECONNREFUSED/);
    handle = () => {}; // never answers
    const controller = new AbortController();
    const pending = keepAliveFetch()(url, { ...post('{}'), signal: controller.signal });
    controller.abort();
    await assert.rejects(pending, { name: 'AbortError' });
  });

  it('refuses a URL that is not http or https', async () => {
    await assert.rejects(keepAliveFetch()('ftp://127.0.0.1/', post('{}')), /http or https, not ftp:/);
  });
});

describe('chain reads on keepAliveFetch', () => {
  const MULTICALL3 = '0xcA11bde05977b3631167028862bE2a173976CA11';
  const read = (client: ReturnType<typeof createChainClient>) =>
    new ReadBatcher(client, MULTICALL3).read([nativeBalanceRead(MULTICALL3, '0x0000000000000000000000000000000000000001')], 'one balance', 1n);

  it('fail closed when the node never answers: the client times out', async () => {
    handle = () => {}; // never answers
    await assert.rejects(read(createChainClient(url, 200)), ChainUnavailableError);
  });

  it('fail closed when the node stalls halfway through its answer: the client times out mid-body', async () => {
    handle = (_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      response.write('{"jsonrpc":"2.0","id":1,'); // and nothing more
    };
    await assert.rejects(read(createChainClient(url, 200)), ChainUnavailableError);
  });

  it('fail closed when the node answers something that is not JSON-RPC', async () => {
    handle = (_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<html>gateway</html>');
    };
    await assert.rejects(read(createChainClient(url, 2_000)), ChainUnavailableError);
  });
});
