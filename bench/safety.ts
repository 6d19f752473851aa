// `npm run bench:safety`: the labelled corpus judged through the HTTP endpoint: confusion matrix, precision, recall, latency, round trips.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deployCorpus, type CorpusToken, type Severity } from '../src/tools/devnet/deploy-corpus.js';
import { startDevnet } from '../src/tools/devnet/devnet.js';
import { freePort, spawnNode, stop } from './harness.js';
import { thisService } from './service.js';

const WARM_REPEATS = 10;
const SEVERITIES: readonly Severity[] = ['safe', 'warn', 'danger'];

/**
 * Counts the HTTP requests (round trips) and JSON-RPC calls the service sends the node about one
 * token: those whose body names it, so the service's own head and price reads are not counted.
 */
class RoundTrips {
  requests = 0;
  calls = 0;
  token = '';
  private constructor(private readonly server: Server, readonly url: string) {}

  static async start(target: string): Promise<RoundTrips> {
    let self: RoundTrips | null = null;
    const server = createServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks).toString('utf8');
      const parsed = JSON.parse(body) as unknown;
      if (self!.token !== '' && body.toLowerCase().includes(self!.token) && !headScan(parsed)) {
        self!.requests += 1;
        self!.calls += Array.isArray(parsed) ? parsed.length : 1;
      }
      const answer = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      response.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    self = new RoundTrips(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return self;
  }

  reset(token: string): void {
    this.requests = 0;
    this.calls = 0;
    this.token = token.slice(2).toLowerCase();
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * The head watch's scan of a block for Transfer logs of every watched token (chain-head.ts): one
 * eth_getLogs over a list of addresses, which names a registry asset whatever is being checked. The
 * check's own log read (recent-holders.ts) names its one token and travels in its first round trip.
 */
function headScan(parsed: unknown): boolean {
  const calls = (Array.isArray(parsed) ? parsed : [parsed]) as { method?: string; params?: { address?: unknown }[] }[];
  return calls.every((call) => call.method === 'eth_getLogs' && Array.isArray(call.params?.[0]?.address) && (call.params[0].address as unknown[]).length > 1);
}

interface Judged {
  token: CorpusToken;
  severity: Severity;
  coldMs: number;
  warmMs: number[];
  roundTrips: number;
  rpcCalls: number;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-safety-'));
  const devnet = await startDevnet();
  const proxy = await RoundTrips.start(devnet.rpcUrl);
  let service: Awaited<ReturnType<typeof spawnNode>> | null = null;
  try {
    const corpus = await deployCorpus(devnet);
    const port = await freePort();
    const registryFile = join(dir, 'registry.json');
    writeFileSync(registryFile, JSON.stringify(devnet.registry));
    const env = { PORT: String(port), DATA_DIR: dir, RATE_LIMITS: 'off', RPC_URL: proxy.url, REGISTRY_FILE: registryFile };
    service = await spawnNode(thisService(), [], env, /listening on/);
    // The service finds the quote token's balance slot once at start; let it finish before counting.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const judged: Judged[] = [];
    for (const token of corpus) judged.push(await judge(`http://127.0.0.1:${port}/api/v1/token-safety`, token, proxy));
    report(judged);
  } finally {
    agent.destroy();
    if (service) await stop(service);
    await proxy.close();
    await devnet.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function judge(url: string, token: CorpusToken, proxy: RoundTrips): Promise<Judged> {
  proxy.reset(token.address);
  const cold = await timedPost(url, token.address);
  const [roundTrips, rpcCalls] = [proxy.requests, proxy.calls];
  const warmMs: number[] = [];
  for (let i = 0; i < WARM_REPEATS; i++) warmMs.push((await timedPost(url, token.address)).ms);
  return { token, severity: cold.severity, coldMs: cold.ms, warmMs, roundTrips, rpcCalls };
}

/** One keep-alive connection, as an agent checking tokens one after another holds. */
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function timedPost(url: string, address: string): Promise<{ ms: number; severity: Severity }> {
  const text = JSON.stringify({ contract_address: address });
  const headers = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) };
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = httpRequest(url, { method: 'POST', agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const ms = performance.now() - started;
        const json = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { severity?: Severity };
        if (res.statusCode !== 200 || !json.severity) reject(new Error(`${address}: HTTP ${res.statusCode} ${JSON.stringify(json)}`));
        else resolve({ ms, severity: json.severity });
      });
    });
    req.on('error', reject);
    req.end(text);
  });
}

function report(judged: Judged[]): void {
  const matrix = SEVERITIES.map((label) => SEVERITIES.map((seen) => judged.filter((j) => j.token.severity === label && j.severity === seen).length));
  const tp = matrix[2][2];
  const predicted = matrix[0][2] + matrix[1][2] + matrix[2][2];
  const actual = matrix[2].reduce((a, b) => a + b, 0);
  const lines = [
    `token-safety corpus: ${judged.length} tokens, measured ${new Date().toISOString().slice(0, 10)} at commit ${commit()}`,
    '',
    '| labelled \\ judged | safe | warn | danger |',
    '|---|---|---|---|',
    ...SEVERITIES.map((label, i) => `| ${label} | ${matrix[i].join(' | ')} |`),
    '',
    `danger precision ${ratio(tp, predicted)} (${tp}/${predicted}), recall ${ratio(tp, actual)} (${tp}/${actual}); exact ${judged.filter((j) => j.severity === j.token.severity).length}/${judged.length}`,
    `cold check: p50 ${percentile(judged.map((j) => j.coldMs), 50)} ms, p99 ${percentile(judged.map((j) => j.coldMs), 99)} ms`,
    `warm check: p50 ${percentile(judged.flatMap((j) => j.warmMs), 50)} ms, p99 ${percentile(judged.flatMap((j) => j.warmMs), 99)} ms (${WARM_REPEATS} per token)`,
    `RPC round trips per cold check: max ${Math.max(...judged.map((j) => j.roundTrips))}, mean ${mean(judged.map((j) => j.roundTrips))}; JSON-RPC calls per cold check: mean ${mean(judged.map((j) => j.rpcCalls))}`,
    ...judged.filter((j) => j.severity !== j.token.severity).map((j) => `  misjudged ${j.token.id}: labelled ${j.token.severity}, judged ${j.severity}`),
    ...judged.filter((j) => j.roundTrips > 2).map((j) => `  ${j.roundTrips} round trips: ${j.token.id}`),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

function percentile(values: number[], p: number): string {
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)].toFixed(1);
}

function ratio(a: number, b: number): string {
  return b === 0 ? 'n/a' : (a / b).toFixed(3);
}

function mean(values: number[]): string {
  return (values.reduce((a, b) => a + b, 0) / values.length).toFixed(2);
}

function commit(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exitCode = 1;
});
