// `npm run bench:instructions -- [--baseline <ref>] [--fresh | --mcp] [--warm-seconds N] [--rate N] [--requests N] [--rounds N]`:
// the machine instructions a request costs, counted by valgrind's callgrind on each thread, for the offline service
// (a fleet of 1,000 wallets; --fresh a new wallet every request; --mcp the fleet's trades as MCP tools/call on 64
// sessions) and for the uWS echo beside it. The service is warmed with the bench's wrk load and then autocannon's, then
// counted over exactly `--requests` requests sent at `--rate` a second (autocannon): at a pace of its own a service
// groups its appends, commits its index and flushes its log differently, and each does per request what a group does
// once. Instructions do not vary with what else the machine runs, as the CPU time of a busy machine does
// (docs/benchmarks.md, its `bench:instructions` paragraph). They are not time: the kernel's work (a send, a syscall's
// wait) and a cache miss count no instruction here. Needs valgrind.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { PATHS } from '../src/catalogue/published-facts.js';
import { addBaseline, buildBaseline } from './baseline-worktree.js';
import { freePort, spawnNode, stop, terminateRunning } from './harness.js';
import type { LoadPlan } from './load-plan.js';
import { mcpScenario } from './mcp-scenario.js';
import { offlinePlan } from './offline-scenarios.js';
import { commitLabel } from './run-info.js';
import { sampleRegistry, startCommand, startService, THIS_BUILD, type ServiceBuild } from './service.js';
import { runAutocannon, warmForPacedRuns, type Pace } from './autocannon-load.js';
import { allAnswered } from './wrk.js';

/** The warm-up's connections, as the bench's rows have them. */
const CONNECTIONS = 64;
/** The paced run's: enough that a slow answer never holds the pace back. */
const PACED_CONNECTIONS = 8;
/** Under valgrind a request takes some 100 times as long: wrk's 2 s default would count answers as timeouts. */
const WRK_TIMEOUT_SECONDS = 60;
/** The warm-up's second part, on the counted run's client (warmForPacedRuns). */
const CLIENT_WARM_SECONDS = 30;
/** Start-up under valgrind instruments every function node loads: about a minute for the service on this machine. */
const READY_WITHIN_MS = 600_000;
const ECHO = fileURLToPath(new URL('./echo-server.js', import.meta.url));

/** Instructions a request: on the main thread (the event loop), on every other thread, and in all. */
interface Count {
  requests: number;
  main: number;
  others: number;
}

/** valgrind's command line for callgrind, one output file per thread in `outDir`, its own log beside them. */
function callgrind(outDir: string): string[] {
  return [
    'valgrind', '--tool=callgrind', '--smc-check=all-non-file', '--separate-threads=yes', `--callgrind-out-file=${join(outDir, 'cg')}`,
    `--log-file=${join(outDir, 'valgrind.log')}`,
  ];
}

/**
 * V8 grows its young generation with the allocation it sees a second, and under callgrind a service runs some hundred
 * times slower: it stayed at its starting size, and the service scavenged once in some 33 counted requests (36 in
 * 1,200), where natively, warmed the same way, it scavenged once in some 1,000, at 100 requests a second as flat out.
 * Each scavenge's fixed work (the roots, V8's startup object cache) then weighed thirty times its native share. The
 * floor is set to the start script's ceiling, the size a warmed native service reaches.
 */
function youngGenerationFloor(build: ServiceBuild): string[] {
  const ceiling = startCommand(build.dir).flags.find((flag) => flag.startsWith('--max-semi-space-size='));
  return ceiling === undefined ? [] : [ceiling.replace('--max-', '--min-')];
}

const callgrindControl = (pid: number, option: string) => new Promise<void>((resolve, reject) => {
  execFile('callgrind_control', [option, String(pid)], (error, stdout, stderr) => (error ? reject(new Error(`callgrind_control ${option}: ${stderr || stdout}`)) : resolve()));
});

/** The instructions each thread ran since the counters were zeroed: dump `dump`'s files, `cg.<dump>-<thread>`. */
function dumpedCounts(outDir: string, dump: number): Map<number, number> {
  const counts = new Map<number, number>();
  for (const name of readdirSync(outDir)) {
    const file = new RegExp(`^cg\\.${dump}-(\\d+)$`).exec(name);
    if (!file) continue;
    const summary = /^summary: (\d+)/m.exec(readFileSync(join(outDir, name), 'utf8'));
    counts.set(Number(file[1]), summary ? Number(summary[1]) : 0);
  }
  if (counts.size === 0) throw new Error(`callgrind wrote no dump ${dump} in ${outDir}`);
  return counts;
}

/** Warms the process with the plan's load, then counts the instructions of the paced run of it. */
async function count(pid: number, outDir: string, plan: LoadPlan, warmSeconds: number, pace: Pace): Promise<Count> {
  const wrk = { connections: CONNECTIONS, seconds: warmSeconds, timeoutSeconds: WRK_TIMEOUT_SECONDS };
  await warmForPacedRuns(plan, wrk, { connections: PACED_CONNECTIONS, seconds: CLIENT_WARM_SECONDS });
  await callgrindControl(pid, '--zero');
  const run = allAnswered(await runAutocannon(plan, PACED_CONNECTIONS, 0, pace), 'the counted run');
  await callgrindControl(pid, '--dump');
  if (run.requests !== pace.requests) throw new Error(`${run.requests} of the ${pace.requests} paced requests were answered`);
  const threads = dumpedCounts(outDir, 1);
  const all = [...threads.values()].reduce((sum, n) => sum + n, 0);
  // Thread 1 is the one node started on: the event loop.
  const main = threads.get(1) ?? 0;
  return { requests: run.requests, main: main / run.requests, others: (all - main) / run.requests };
}

async function countEcho(warmSeconds: number, pace: Pace): Promise<Count> {
  const port = await freePort();
  const outDir = mkdtempSync(join(tmpdir(), 'bench-callgrind-'));
  try {
    const echo = await spawnNode(ECHO, [String(port)], {}, /listening/, [], READY_WITHIN_MS, callgrind(outDir));
    try {
      return await count(echo.pid!, outDir, offlinePlan(`http://127.0.0.1:${port}/echo`), warmSeconds, pace);
    } finally {
      await stop(echo);
    }
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

type Load = 'fleet' | 'fresh' | 'mcp';

async function countService(build: ServiceBuild, what: Load, warmSeconds: number, pace: Pace): Promise<Count> {
  const outDir = mkdtempSync(join(tmpdir(), 'bench-callgrind-'));
  try {
    process.stderr.write(`starting ${build.commit} under valgrind\n`);
    const env = { REGISTRY_FILE: sampleRegistry(build), MCP_SESSIONS_PER_IP: String(CONNECTIONS * 2) };
    const service = await startService(build, env, READY_WITHIN_MS, youngGenerationFloor(build), callgrind(outDir));
    try {
      const rest = offlinePlan(`${service.base}${PATHS.analyzeFree}`, what === 'fresh' ? 0 : undefined);
      const plan = what === 'mcp' ? (await mcpScenario(rest, `${service.base}${PATHS.mcp}`, service.subject, CONNECTIONS, 'wrk')).plan : rest;
      process.stderr.write(`warming ${build.commit} for ${warmSeconds} s, then counting ${pace.requests} requests at ${pace.perSecond} a second\n`);
      return await count(service.pid, outDir, plan, warmSeconds, pace);
    } finally {
      await service.stop();
    }
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

const thousands = (n: number) => (n / 1000).toFixed(1).padStart(8);

function row(label: string, counted: Count, echo: Count): string {
  const all = counted.main + counted.others;
  const times = (n: number, of: number) => (n / of).toFixed(2).padStart(6);
  return `${label.padEnd(16)} ${String(counted.requests).padStart(8)} ${thousands(counted.main)} ${thousands(counted.others)} ${thousands(all)} ${times(counted.main, echo.main)} ${times(all, echo.main + echo.others)}`;
}

function positive(name: string, text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer, got ${text}`);
  return value;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      baseline: { type: 'string' }, fresh: { type: 'boolean', default: false }, mcp: { type: 'boolean', default: false },
      'warm-seconds': { type: 'string', default: '90' }, rate: { type: 'string', default: '40' }, requests: { type: 'string', default: '2400' },
      rounds: { type: 'string', default: '1' },
    },
  });
  if (values.fresh && values.mcp) throw new Error('--fresh and --mcp do not go together: --mcp runs the fleet');
  const warmSeconds = positive('warm-seconds', values['warm-seconds']);
  const pace: Pace = { perSecond: positive('rate', values.rate), requests: positive('requests', values.requests), timeoutSeconds: WRK_TIMEOUT_SECONDS };
  const rounds = positive('rounds', values.rounds);
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error('valgrind is not installed (apt-get install valgrind)');
  }
  const what: Load = values.mcp ? 'mcp' : values.fresh ? 'fresh' : 'fleet';
  const worktree = values.baseline ? addBaseline(THIS_BUILD.dir, values.baseline) : null;
  const onSignal = () => {
    terminateRunning();
    worktree?.remove();
    process.exit(130);
  };
  process.once('SIGINT', onSignal);
  try {
    if (worktree) await buildBaseline(worktree);
    const builds: ServiceBuild[] = [...(worktree ? [worktree.build] : []), { ...THIS_BUILD, commit: commitLabel() }];
    process.stderr.write('counting the uWS echo under valgrind\n');
    const echo = await countEcho(Math.min(warmSeconds, 20), pace);
    const lines: string[] = [];
    for (let round = 0; round < rounds; round++) {
      // The builds take turns, as npm run bench --baseline's do.
      for (const build of round % 2 === 0 ? builds : [...builds].reverse()) {
        lines.push(row(`${build.commit}`, await countService(build, what, warmSeconds, pace), echo));
      }
    }
    const load = what === 'mcp' ? 'MCP tools/call on the fleet of 1,000' : what === 'fresh' ? 'a new wallet every request' : 'a fleet of 1,000 wallets';
    process.stdout.write(`instructions a request (thousands), callgrind; ${warmSeconds} s of wrk -t1 -c${CONNECTIONS} and ${CLIENT_WARM_SECONDS} s of autocannon -c${PACED_CONNECTIONS} to warm up, then ${pace.requests} requests at ${pace.perSecond} a second counted; offline service, ${load};\nmain/e and proc/e: the main thread's and the whole process's instructions over the echo's\n`);
    process.stdout.write(`${'build'.padEnd(16)} ${'requests'.padStart(8)} ${'main'.padStart(8)} ${'others'.padStart(8)} ${'process'.padStart(8)} ${'main/e'.padStart(6)} ${'proc/e'.padStart(6)}\n`);
    process.stdout.write(`${row('uWS echo', echo, echo)}\n${lines.join('\n')}\n`);
  } finally {
    process.off('SIGINT', onSignal);
    worktree?.remove();
  }
}

main().catch((error: Error) => {
  process.stderr.write(`bench:instructions: ${error.message}\n`);
  process.exitCode = 1;
});
