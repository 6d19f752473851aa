// One row of the table: check the scenario answers as it should, warm it, then load it while /proc counts its server's CPU.
import { runAutocannon } from './autocannon-load.js';
import { requestAt, type LoadPlan } from './load-plan.js';
import { cpuUsPerRequest, readCpuSample, type CpuPerRequest } from './proc-stat.js';
import type { Measurement } from './scenario-rows.js';
import type { ThreadKind } from './threads.js';
import { runWrk, wrkAvailable, type LoadRun } from './wrk.js';

export interface LoadGenerator {
  name: 'wrk' | 'autocannon';
  label: string;
  /** Loads the plan for the run's seconds, or for `seconds` when given (a warm-up). */
  run: (plan: LoadPlan, seconds?: number) => Promise<LoadRun>;
}

/**
 * Seconds of load on a row's warm-up plan before its timed run, after the warm-up requests
 * (BENCH_WARM_SECONDS). An operator pays for a service that has run for hours: by then V8 has
 * compiled its hot code. A thousand requests did not get there: under `perf`, V8's compiler
 * threads were still at work through the timed run that followed (docs/benchmarks.md).
 */
export const DEFAULT_WARM_SECONDS = 5;

/** The server a row loads, whose CPU it reports. */
export interface Subject {
  pid: number;
  /** Its threads by kind, as known now (the main thread at least). */
  threadKinds: () => Map<number, ThreadKind>;
  /** A process of its own whose CPU the row reports beside it (the devnet's anvil), or null. */
  companionPid: () => number | null;
}

/** A server whose threads the bench cannot tell apart (the echo): the main thread, and everything else in `others`. */
export function plainSubject(pid: number): Subject {
  return { pid, threadKinds: () => new Map([[pid, 'loop']]), companionPid: () => null };
}

export interface Scenario {
  id: string;
  label: string;
  note: string;
  plan: LoadPlan;
  /** Requests sent before the measurement (compiled code, warm caches), from their own plan. */
  warmUp: { plan: LoadPlan; requests: number };
  /** Seconds of warm-up load for this row alone, in place of BENCH_WARM_SECONDS. */
  warmSeconds?: number;
  subject: Subject;
  /** What is wrong with the answer to one request of the plan, or null when it is what the scenario should get. */
  check: (status: number, body: string, sent: string) => string | null;
}

/** wrk -t1 when installed and BENCH_GENERATOR is not "autocannon", else autocannon; the same one for every row of a run. */
export async function chooseGenerator(connections: number, seconds: number): Promise<LoadGenerator> {
  if (process.env.BENCH_GENERATOR === 'autocannon') {
    return { name: 'autocannon', label: `autocannon -c${connections} (BENCH_GENERATOR)`, run: (plan, time = seconds) => runAutocannon(plan, connections, time) };
  }
  if (await wrkAvailable()) {
    return { name: 'wrk', label: `wrk -t1 -c${connections} (bench/analyze.lua)`, run: (plan, time = seconds) => runWrk(plan, connections, time) };
  }
  return { name: 'autocannon', label: `autocannon -c${connections} (wrk not installed)`, run: (plan, time = seconds) => runAutocannon(plan, connections, time) };
}

export async function measure(scenario: Scenario, generator: LoadGenerator, ticksPerSecond: number, connections: number, warmSeconds: number): Promise<Measurement> {
  process.stderr.write(`measuring ${scenario.label}\n`);
  const first = requestAt(scenario.plan, 0);
  const answer = await send(scenario.plan.url, first.headers, first.body);
  const wrong = scenario.check(answer.status, answer.body, first.body);
  if (wrong) throw new Error(`${scenario.label}: ${wrong} (answer ${answer.status}: ${answer.body.slice(0, 300)})`);
  await warmUp(scenario.warmUp.plan, scenario.warmUp.requests, connections);
  const loadSeconds = scenario.warmSeconds ?? warmSeconds;
  if (loadSeconds > 0) {
    // A plan of new wallets goes on past the requests warmUp() sent, so its wallets stay new; a fleet goes round again.
    const { plan, requests } = scenario.warmUp;
    const warm = await generator.run(plan.walletCycle === 0 ? { ...plan, walletOffset: plan.walletOffset + requests } : plan, loadSeconds);
    // Reported as the timed run's are: a stray timeout under load does not end the bench.
    if (warm.non2xx + warm.socketErrors > 0) process.stderr.write(`  ${scenario.label}: ${warm.non2xx} ${unexpectedAnswers(plan)} and ${warm.socketErrors} socket errors in the warm-up\n`);
  }
  const { run, cpu } = await metered(scenario.subject, ticksPerSecond, () => generator.run(scenario.plan));
  if (run.non2xx + run.socketErrors > 0) {
    process.stderr.write(`  ${scenario.label}: ${run.non2xx} ${unexpectedAnswers(scenario.plan)} and ${run.socketErrors} socket errors under load\n`);
  }
  return { id: scenario.id, label: scenario.label, note: scenario.note, run, cpu };
}

/** Runs `load` between two readings of the subject's CPU: what the timed run cost, and nothing before or after it. */
export async function metered<T extends { requests: number }>(subject: Subject, ticksPerSecond: number, load: () => Promise<T>): Promise<{ run: T; cpu: CpuPerRequest }> {
  const kinds = subject.threadKinds();
  const companion = subject.companionPid();
  const before = readCpuSample(subject.pid, kinds.keys(), companion);
  const run = await load();
  const after = readCpuSample(subject.pid, kinds.keys(), companion);
  return { run, cpu: cpuUsPerRequest(before, after, kinds, run.requests, ticksPerSecond) };
}

async function send(url: string, headers: Record<string, string>, body: string): Promise<{ status: number; body: string }> {
  const response = await fetch(url, { method: 'POST', headers, body });
  return { status: response.status, body: await response.text() };
}

/** What the generator's count of unexpected answers counted, for the plan. */
function unexpectedAnswers(plan: LoadPlan): string {
  return plan.answers === undefined ? 'non-2xx answers' : `answers other than ${plan.answers}`;
}

/** Whether an answer carries the status the plan expects: its `answers`, else any 2xx. */
function expected(plan: LoadPlan, status: number): boolean {
  return plan.answers === undefined ? status >= 200 && status <= 299 : status === plan.answers;
}

/** Requests 1..count of `plan`, `concurrency` at a time; an answer without the status the plan expects stops the bench. */
export async function warmUp(plan: LoadPlan, count: number, concurrency: number): Promise<void> {
  let next = 1;
  const worker = async () => {
    for (let n = next++; n <= count; n = next++) {
      const { headers, body } = requestAt(plan, n);
      const answer = await send(plan.url, headers, body);
      if (!expected(plan, answer.status)) throw new Error(`warm-up request ${n} to ${plan.url} answered ${answer.status}: ${answer.body.slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

/** The echo answers with the body it was sent. */
export function echoes(status: number, body: string, sent: string): string | null {
  return status === 200 && body === sent ? null : 'the echo did not answer 200 with the body sent';
}

/** A REST evaluation answers 200 with a verdict. */
export function restVerdict(status: number, body: string): string | null {
  if (status !== 200) return 'expected 200 with a verdict';
  return typeof parsed(body)?.decision === 'string' ? null : 'the answer has no decision';
}

/** An MCP tools/call answers 200 with a result that is not a tool error and carries a verdict. */
export function mcpVerdict(status: number, body: string): string | null {
  const result = parsed(body)?.result as { isError?: boolean; structuredContent?: { decision?: unknown } } | undefined;
  if (status !== 200 || !result || result.isError) return 'expected 200 with a tools/call result that is not an error';
  return typeof result.structuredContent?.decision === 'string' ? null : 'the tool result has no decision';
}

function parsed(body: string): Record<string, unknown> | null {
  try {
    return JSON.parse(body) as Record<string, unknown>;
  } catch {
    return null;
  }
}
