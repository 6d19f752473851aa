// `npm run bench:paced -- [--rates 100,500,2000] [--seconds N] [--fresh]`: CPU a verdict at a steady pace, what a
// service that is not saturated pays. The offline service (the sample registry, a fleet of 1,000 wallets; --fresh a new
// wallet every request) is warmed as `npm run bench` warms it and then by autocannon, then sent `--seconds` (default
// 15) of requests at each rate in turn (autocannon's overallRate, 8 connections), then loaded flat out with the bench's
// wrk for the same time; each row is CPU a request from /proc by thread over its run, and the service's CPU while
// idle, which every rate carries, is read first (docs/benchmarks.md, its `bench:paced` paragraph).
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { PATHS } from '../src/catalogue/published-facts.js';
import { runAutocannon, warmForPacedRuns } from './autocannon-load.js';
import { metered } from './measure.js';
import { offlinePlan } from './offline-scenarios.js';
import { clockTicksPerSecond, readCpuSample, type CpuPerRequest } from './proc-stat.js';
import { sampleRegistry, startService, THIS_BUILD } from './service.js';
import { commitLabel } from './run-info.js';
import { allAnswered, runWrk, type LoadRun } from './wrk.js';

const CONNECTIONS = 64;
const PACED_CONNECTIONS = 8;
const WARM_SECONDS = 5;

const us = (value: number | null) => (value === null ? '-' : value.toFixed(1)).padStart(8);

function row(label: string, run: LoadRun, cpu: CpuPerRequest): string {
  const perSecond = Math.round(run.requests / run.durationSeconds).toLocaleString('en-US');
  return `| ${label} | ${perSecond} | ${run.p99Ms} | ${us(cpu.loop)} | ${us(cpu.tree)} | ${us(cpu.others)} | ${us(cpu.process)} |`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { rates: { type: 'string', default: '100,500,2000' }, seconds: { type: 'string', default: '15' }, fresh: { type: 'boolean', default: false } } });
  const rates = values.rates.split(',').map(Number);
  const seconds = Number(values.seconds);
  if (rates.some((rate) => !Number.isSafeInteger(rate) || rate < 1)) throw new Error(`--rates must be positive integers, got ${values.rates}`);
  if (!Number.isSafeInteger(seconds) || seconds < 1) throw new Error(`--seconds must be a positive integer, got ${values.seconds}`);
  const ticksPerSecond = clockTicksPerSecond();
  const service = await startService(THIS_BUILD, { REGISTRY_FILE: sampleRegistry(THIS_BUILD) }, 60_000);
  try {
    const plan = offlinePlan(`${service.base}${PATHS.analyzeFree}`, values.fresh ? 0 : undefined);
    process.stderr.write(`warming for ${WARM_SECONDS} s on wrk, then ${WARM_SECONDS} s on autocannon\n`);
    await warmForPacedRuns(plan, { connections: CONNECTIONS, seconds: WARM_SECONDS }, { connections: PACED_CONNECTIONS, seconds: WARM_SECONDS });
    await sleep(2_000);
    const kinds = service.subject.threadKinds();
    const before = readCpuSample(service.pid, kinds.keys(), null);
    await sleep(seconds * 1000);
    const after = readCpuSample(service.pid, kinds.keys(), null);
    const idleMs = ((after.process - before.process) / ticksPerSecond / seconds) * 1000;
    const lines: string[] = [];
    for (const rate of rates) {
      process.stderr.write(`${rate} requests a second for ${seconds} s\n`);
      const pace = { perSecond: rate, requests: rate * seconds, timeoutSeconds: 10 };
      const { run, cpu } = await metered(service.subject, ticksPerSecond, () => runAutocannon(plan, PACED_CONNECTIONS, 0, pace));
      lines.push(row(`${rate.toLocaleString('en-US')} a second`, allAnswered(run, `${rate} a second`), cpu));
    }
    process.stderr.write(`flat out for ${seconds} s\n`);
    const { run, cpu } = await metered(service.subject, ticksPerSecond, () => runWrk(plan, CONNECTIONS, seconds));
    lines.push(row(`flat out`, allAnswered(run, 'flat out'), cpu));
    const load = values.fresh ? 'a new wallet every request' : 'a fleet of 1,000 wallets';
    process.stdout.write(`npm run bench:paced: ${commitLabel()}, offline service, ${load}; ${seconds} s a row; paced by autocannon -c${PACED_CONNECTIONS}, flat out by wrk -t1 -c${CONNECTIONS}\n`);
    process.stdout.write(`idle, before the rows: ${idleMs.toFixed(1)} ms of CPU a second\n\n`);
    process.stdout.write('| pace | req/s | p99 ms | loop us | tree us | others us | process us |\n|---|---:|---:|---:|---:|---:|---:|\n');
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await service.stop();
  }
}

main().catch((error: Error) => {
  process.stderr.write(`bench:paced: ${error.message}\n`);
  process.exitCode = 1;
});
