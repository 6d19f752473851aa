// The chain client's HTTP fetch against real servers on loopback: answers as viem reads them, kept-alive sockets,
// and every way a read can fail (refused, cut off, oversized, timed out) rejects, so the read fails closed.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ChainUnavailableError } from '../../../../src/facts/chain/errors.js';
import { nativeBalanceRead } from '../../../../src/facts/chain/multicall.js';
import { createChainClient } from '../../../../src/facts/chain/public-client.js';
import { ReadBatcher } from '../../../../src/facts/chain/read-batcher.js';
import { keepAliveFetch } from '../../../../src/facts/chain/rpc-fetch.js';
import { freePort } from '../../../../src/tools/devnet/free-port.js';
import { fileURLToPath } from 'node:url';

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

const MULTICALL3 = '0xcA11bde05977b3631167028862bE2a173976CA11';
/** One balance read through the read batcher, which turns any failure of the client into ChainUnavailableError. */
const read = (client: ReturnType<typeof createChainClient>) =>
  new ReadBatcher(client, MULTICALL3).read([nativeBalanceRead(MULTICALL3, '0x0000000000000000000000000000000000000001')], 'one balance', 1n);

describe('chain reads on keepAliveFetch', () => {

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

describe('keepAliveFetch over https', () => {
  // A self-signed certificate for 127.0.0.1 (test/support/tls, valid until 2126), trusted only where a test says so.
  const TLS = fileURLToPath(new URL('../../../../../test/support/tls/', import.meta.url));
  const FETCH = fileURLToPath(new URL('../../../../src/facts/chain/rpc-fetch.js', import.meta.url));
  const tls = { cert: readFileSync(`${TLS}loopback-cert.pem`), key: readFileSync(`${TLS}loopback-key.pem`) };
  let secure: ReturnType<typeof createTlsServer>;
  let secureUrl: string;
  const securePeers: number[] = [];

  before(async () => {
    secure = createTlsServer(tls, (request, response) => {
      securePeers.push(request.socket.remotePort ?? 0);
      request.resume();
      request.on('end', () => response.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: '0x2a' })));
    });
    await new Promise<void>((resolve) => secure.listen(0, '127.0.0.1', resolve));
    secureUrl = `https://127.0.0.1:${(secure.address() as AddressInfo).port}/rpc`;
  });
  after(async () => {
    secure.closeAllConnections();
    await new Promise((resolve) => secure.close(resolve));
  });

  it('reads over TLS from a node whose certificate is trusted, on one kept-alive connection', async () => {
    // The certificate is trusted the way an operator would trust a private CA: NODE_EXTRA_CA_CERTS, read at start.
    const script = `
      const { keepAliveFetch } = await import(process.argv[1]);
      const send = keepAliveFetch();
      const texts = [];
      for (let i = 0; i < 2; i++) texts.push(await (await send(process.argv[2], { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).text());
      process.stdout.write(JSON.stringify(texts));
      process.exit(0);
    `;
    const before = securePeers.length;
    const output = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, ['--input-type=module', '-e', script, FETCH, secureUrl], { env: { ...process.env, NODE_EXTRA_CA_CERTS: `${TLS}loopback-cert.pem` }, timeout: 20_000 },
        (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)));
    });
    assert.deepEqual(JSON.parse(output), Array(2).fill('{"jsonrpc":"2.0","id":1,"result":"0x2a"}'));
    const used = securePeers.slice(before);
    assert.equal(used.length, 2);
    assert.equal(new Set(used).size, 1, 'one TLS connection for both requests');
  });

  it('refuses a node whose certificate is not trusted, so the read fails closed', async () => {
    await assert.rejects(keepAliveFetch()(secureUrl, post('{}')), /self-signed certificate/);
    await assert.rejects(read(createChainClient(secureUrl, 2_000)), ChainUnavailableError);
  });
});

