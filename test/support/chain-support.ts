// Shared by the chain-* integration tests: an RPC-counting proxy, a registry file for a devnet, a plain anvil.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Agent, createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { anvilBinary } from '../../src/tools/devnet/anvil.js';
import type { Devnet } from '../../src/tools/devnet/devnet.js';
import type { RegistryFile } from '../../src/facts/registry/registry.js';
import { waitUntil } from './wait-until.js';

export interface RpcCall {
  method: string;
  /** eth_call target, lower case, when the request is an eth_call. */
  to: string | null;
}

/**
 * A loopback HTTP proxy in front of a node that records every JSON-RPC request it forwards,
 * so a test can count what the service really asked the chain.
 */
export class CountingProxy {
  readonly calls: RpcCall[] = [];
  /** While set, requests are counted on arrival and forwarded only once it resolves (a slow node). */
  private held: Promise<void> | null = null;

  private constructor(private readonly server: Server, readonly url: string) {}

  static async start(target: string): Promise<CountingProxy> {
    let proxy: CountingProxy | null = null;
    const server = createServer((request, response) => {
      proxy!.forward(target, request, response).catch(() => response.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy = new CountingProxy(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return proxy;
  }

  count(method: string): number {
    return this.calls.filter((call) => call.method === method).length;
  }

  reset(): void {
    this.calls.length = 0;
  }

  /** Holds every request from now on until the returned function is called; the node then answers them all. */
  hold(): () => void {
    let release!: () => void;
    this.held = new Promise<void>((resolve) => (release = resolve));
    return () => {
      this.held = null;
      release();
    };
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async forward(target: string, request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const parsed = JSON.parse(body) as { method: string; params?: { to?: string }[] } | { method: string; params?: { to?: string }[] }[];
    for (const item of Array.isArray(parsed) ? parsed : [parsed]) {
      this.calls.push({ method: item.method, to: item.method === 'eth_call' ? (item.params?.[0]?.to ?? '').toLowerCase() : null });
    }
    if (this.held !== null) await this.held;
    try {
      const answer = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const text = await answer.text();
      response.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
    } catch {
      response.destroy(); // the node is gone: the client sees a dropped connection, as with a dead node
    }
  }
}

/** The devnet's registry as a REGISTRY_FILE, with its venue, for a service started with RPC_URL. */
export function writeRegistryFile(devnet: Devnet, dir: string, patch: Partial<RegistryFile> = {}): string {
  const path = join(dir, 'registry.json');
  writeFileSync(path, JSON.stringify({ ...devnet.registry, ...patch }, null, 2));
  return path;
}

/** A bare anvil on a chosen port (no contracts), for reconnection tests. */
export async function startPlainAnvil(port: number): Promise<ChildProcess> {
  const child = spawn(anvilBinary(), ['--host', '127.0.0.1', '--port', String(port), '--silent'], { stdio: 'ignore' });
  const answers = async (): Promise<boolean> => {
    if (child.exitCode !== null) throw new Error(`anvil exited with ${child.exitCode}`);
    const request = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }) };
    // A refused connection: not listening yet.
    return fetch(`http://127.0.0.1:${port}`, request).then((answer) => answer.ok, () => false);
  };
  try {
    await waitUntil(answers, `anvil did not answer on port ${port}`, 10_000, 25);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return child;
}

export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/** Milliseconds an async step took, with its result. */
export async function timed<T>(step: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await step();
  return { value, ms: performance.now() - started };
}

/**
 * POSTs every body at once over a bounded keep-alive pool, so a burst measures the service
 * rather than the cost of opening a thousand sockets.
 */
export async function postBurst(url: string, bodies: unknown[], connections = 64): Promise<{ status: number; json: any }[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  try {
    return await Promise.all(bodies.map((body) => postWith(agent, url, JSON.stringify(body))));
  } finally {
    agent.destroy();
  }
}

function postWith(agent: Agent, url: string, text: string): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const headers = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) };
    const req = httpRequest(url, { method: 'POST', agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
    });
    req.on('error', reject);
    req.end(text);
  });
}
