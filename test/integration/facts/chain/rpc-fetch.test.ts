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
import { chainClients, createChainClient } from '../../../../src/facts/chain/public-client.js';
import { ethCaller } from '../../../../src/facts/chain/eth-caller.js';
import { ReadBatcher } from '../../../../src/facts/chain/read-batcher.js';
import { keepAliveFetch, RpcTimeoutError } from '../../../../src/facts/chain/rpc-fetch.js';
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

  it('abandons a request past its deadline: rejects with RpcTimeoutError and closes its socket', async () => {
    const closed: Promise<void>[] = [];
    handle = (request) => {
      closed.push(new Promise((resolve) => request.socket.once('close', () => resolve())));
    }; // never answers
    const send = keepAliveFetch();
    const began = performance.now();
    await assert.rejects(send(url, { ...post('{}'), timeoutMs: 150 }), (error: unknown) => error instanceof RpcTimeoutError && error.timeoutMs === 150);
    assert.ok(performance.now() - began >= 140, 'not before its deadline');
    // The server sees the socket go: a node that answers late answers no one, and the next request takes a new socket.
    await Promise.race([closed[0], new Promise((_, reject) => setTimeout(() => reject(new Error('the socket stayed open')), 5_000))]);
    handle = (_request, _body, response) => response.end('{"ok":true}');
    assert.equal(await (await send(url, { ...post('{}'), timeoutMs: 2_000 })).text(), '{"ok":true}');
  });

  it('keeps no deadline past an answer: its timer goes with it', async () => {
    handle = (_request, _body, response) => response.end('{"ok":1}');
    // Timers that hold the process (setTimeout without unref): the deadline is one while the request is out, and only then.
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const before = timers();
    const pending = keepAliveFetch()(url, { ...post('{}'), timeoutMs: 60_000 });
    assert.equal(timers(), before + 1);
    assert.equal(await (await pending).text(), '{"ok":1}');
    assert.equal(timers(), before);
    handle = (_request, _body, response) => response.writeHead(500).end();
    await (await keepAliveFetch()(url, { ...post('{}'), timeoutMs: 60_000 })).text();
    await assert.rejects(keepAliveFetch()(`http://127.0.0.1:${await freePort()}/`, { ...post('{}'), timeoutMs: 60_000 }), /ECONNREFUSED/);
    assert.equal(timers(), before, 'nor past an HTTP error or a refused connection');
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

describe('ethCaller, the read batcher\'s eth_call', () => {
  const CALL = { method: 'eth_call' as const, params: [{ to: MULTICALL3 as `0x${string}`, data: '0x1234' as `0x${string}` }, '0x2a' as `0x${string}`] as [{ to: `0x${string}`; data: `0x${string}` }, `0x${string}`] };
  const answering = (answer: (request: { jsonrpc: string; id: number; method: string; params: unknown }) => unknown, status = 200): Handler =>
    (_request, body, response) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer(JSON.parse(body))));
    };
  /** The message an evaluation logs for a batched read that failed (errors.ts). */
  const logged = async (pending: Promise<unknown>) => {
    const error = await pending.then(() => null, (cause: unknown) => new ChainUnavailableError('one balance', cause));
    assert.ok(error, 'the read rejected');
    return error.message;
  };

  it('sends one JSON-RPC eth_call and answers its result', async () => {
    const seen: unknown[] = [];
    handle = answering((request) => {
      seen.push(request);
      return { jsonrpc: '2.0', id: request.id, result: '0xbeef' };
    });
    const calls = ethCaller(url, keepAliveFetch(), 2_000);
    assert.equal(await calls.request(CALL), '0xbeef');
    assert.equal(await calls.request(CALL), '0xbeef');
    assert.deepEqual(seen, [
      { jsonrpc: '2.0', id: 1, method: 'eth_call', params: CALL.params },
      { jsonrpc: '2.0', id: 2, method: 'eth_call', params: CALL.params },
    ]);
  });

  it('fails as viem\'s client fails, naming the node\'s origin and the request, never its path', async () => {
    const secretUrl = `${url}/key-s3cret?apikey=s3cret`;
    const calls = ethCaller(secretUrl, keepAliveFetch(), 300);
    handle = answering((request) => ({ jsonrpc: '2.0', id: request.id, error: { code: -32000, message: 'header not found' } }));
    const rpc = await logged(calls.request(CALL));
    assert.match(rpc, /^one balance failed: RPC Request failed: header not found URL: http:\/\/127\.0\.0\.1:\d+ Request body: \{"method":"eth_call"/);
    handle = (_request, _body, response) => response.writeHead(502, 'Bad Gateway').end('<html>down</html>');
    assert.match(await logged(calls.request(CALL)), /^one balance failed: HTTP request failed: Unexpected token '<'.* URL: http:\/\/127/);
    handle = answering(() => ({ jsonrpc: '2.0', id: 1 }), 503);
    assert.match(await logged(calls.request(CALL)), /^one balance failed: HTTP request failed: Service Unavailable URL: /);
    handle = answering(() => ({ jsonrpc: '2.0', id: 1 }));
    assert.match(await logged(calls.request(CALL)), /^one balance failed: HTTP request failed: the answer holds no result URL: /);
    handle = () => {}; // never answers
    assert.match(await logged(calls.request(CALL)), /^one balance failed: The request took too long to respond: The request timed out\. URL: http:\/\/127/);
    const refused = ethCaller(`http://127.0.0.1:${await freePort()}/key-s3cret`, keepAliveFetch(), 2_000);
    assert.match(await logged(refused.request(CALL)), /^one balance failed: HTTP request failed: connect ECONNREFUSED 127\.0\.0\.1:\d+ URL: /);
    for (const message of [rpc, await logged(refused.request(CALL))]) assert.doesNotMatch(message, /s3cret/);
  });

  it('is refused while the service\'s gate names a reason, as the client is, without a request', async () => {
    let reason: string | null = 'the embedded devnet is restarting';
    const before = peers.length;
    handle = answering((request) => ({ jsonrpc: '2.0', id: request.id, result: '0x01' }));
    const { calls } = chainClients(url, 2_000, () => reason);
    assert.match(await logged(calls.request(CALL)), /^one balance failed: HTTP request failed: the embedded devnet is restarting URL: /);
    assert.equal(peers.length, before, 'nothing reached the node');
    reason = null;
    assert.equal(await calls.request(CALL), '0x01');
  });

  it('fails closed in the read batcher when the node never answers', async () => {
    handle = () => {}; // never answers
    await assert.rejects(
      new ReadBatcher(ethCaller(url, keepAliveFetch(), 200), MULTICALL3).read([nativeBalanceRead(MULTICALL3, '0x0000000000000000000000000000000000000001')], 'one balance', 1n),
      ChainUnavailableError,
    );
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

