// `npm run bench:allocations -- [--seconds N] [--top N] [--fresh | --mcp]`: the heap a verdict allocates. The offline
// service (the sample registry, a fleet of 1,000 wallets in turn, with --fresh a new wallet every request, with --mcp the
// fleet's trades as MCP tools/call on 64 sessions, as the bench's MCP row) under the same wrk load as `npm run bench`, with V8's sampling heap profiler on over the timed run, objects the young and old
// collections freed included; prints bytes a request in all and by function, what it allocated itself and with what
// it called. Sampled every 1 KiB, so a function under some 100 bytes a request is noise (docs/benchmarks.md).
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { PATHS } from '../src/catalogue/published-facts.js';
import { freePort } from './harness.js';
import { mcpScenario } from './mcp-scenario.js';
import { offlinePlan } from './offline-scenarios.js';
import { sampleRegistry, startService, THIS_BUILD } from './service.js';
import { allAnswered, runWrk } from './wrk.js';

/** The load's connections, as the bench's rows have them. */
const CONNECTIONS = 64;

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

/** One DevTools protocol session over the inspector's WebSocket. */
async function inspector(port: number): Promise<{ call: (method: string, params?: object) => Promise<unknown>; close: () => void }> {
  const [target] = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json() as Array<{ webSocketDebuggerUrl: string }>;
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const waiting = new Map<number, (result: unknown) => void>();
  socket.on('message', (data: Buffer) => {
    const message = JSON.parse(data.toString()) as { id?: number; result?: unknown };
    if (message.id !== undefined) waiting.get(message.id)?.(message.result);
  });
  let next = 0;
  const call = (method: string, params: object = {}) => new Promise<unknown>((resolve) => {
    next += 1;
    waiting.set(next, resolve);
    socket.send(JSON.stringify({ id: next, method, params }));
  });
  return { call, close: () => socket.close() };
}

/** Bytes by function, allocated by itself and by it and what it called, over the whole profile. */
function byFunction(root: ProfileNode): { total: number; self: Map<string, number>; inclusive: Map<string, number> } {
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  const walk = (node: ProfileNode, callers: string[]) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const name = `${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}`;
    total += node.selfSize;
    self.set(name, (self.get(name) ?? 0) + node.selfSize);
    const stack = callers.includes(name) ? callers : [...callers, name];
    for (const caller of stack) inclusive.set(caller, (inclusive.get(caller) ?? 0) + node.selfSize);
    for (const child of node.children) walk(child, stack);
  };
  walk(root, []);
  return { total, self, inclusive };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { seconds: { type: 'string', default: '8' }, top: { type: 'string', default: '25' }, fresh: { type: 'boolean', default: false }, mcp: { type: 'boolean', default: false } },
  });
  const seconds = Number(values.seconds);
  const top = Number(values.top);
  if (!Number.isSafeInteger(seconds) || seconds < 1) throw new Error(`--seconds must be a positive integer, got ${values.seconds}`);
  if (!Number.isSafeInteger(top) || top < 1) throw new Error(`--top must be a positive integer, got ${values.top}`);
  if (values.fresh && values.mcp) throw new Error('--fresh and --mcp do not go together: --mcp runs the fleet');
  const inspectPort = await freePort();
  // One MCP session per connection and the spares a warm-up may open, from the one address the load comes from (as the bench's).
  const env = { REGISTRY_FILE: sampleRegistry(THIS_BUILD), MCP_SESSIONS_PER_IP: String(CONNECTIONS * 2) };
  const service = await startService(THIS_BUILD, env, 60_000, [`--inspect=127.0.0.1:${inspectPort}`]);
  try {
    const rest = offlinePlan(`${service.base}${PATHS.analyzeFree}`, values.fresh ? 0 : undefined);
    const plan = values.mcp ? (await mcpScenario(rest, `${service.base}${PATHS.mcp}`, service.subject, CONNECTIONS, 'wrk')).plan : rest;
    const load = values.mcp ? 'MCP tools/call, a fleet of 1,000 wallets' : values.fresh ? 'a new wallet every request' : 'a fleet of 1,000 wallets';
    process.stderr.write('warming up for 5 s\n');
    await runWrk(plan, CONNECTIONS, 5);
    const session = await inspector(inspectPort);
    try {
      await session.call('HeapProfiler.enable');
      await session.call('HeapProfiler.startSampling', { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
      process.stderr.write(`measuring for ${seconds} s\n`);
      const run = allAnswered(await runWrk(plan, CONNECTIONS, seconds), 'the timed run');
      const { profile } = await session.call('HeapProfiler.stopSampling') as { profile: { head: ProfileNode } };
      const { total, self, inclusive } = byFunction(profile.head);
      const perRequest = (bytes: number) => (bytes / run.requests).toFixed(0).padStart(7);
      const rows = (figures: Map<string, number>) => [...figures].sort((a, b) => b[1] - a[1]).slice(0, top).map(([name, bytes]) => `${perRequest(bytes)}  ${name}`).join('\n');
      process.stdout.write(`${run.requests} requests (${load}), ${(total / run.requests / 1024).toFixed(1)} KiB allocated a request\n`);
      process.stdout.write(`\nbytes a request, allocated by the function itself:\n${rows(self)}\n`);
      process.stdout.write(`\nbytes a request, by the function and what it called:\n${rows(inclusive)}\n`);
    } finally {
      session.close();
    }
  } finally {
    await service.stop();
  }
}

main().catch((error: Error) => {
  process.stderr.write(`bench:allocations: ${error.message}\n`);
  process.exitCode = 1;
});
