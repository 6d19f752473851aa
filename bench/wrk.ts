// Runs wrk (Debian package) with one thread and bench/analyze.lua, for a load generator lighter than Node's.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { planEnvironment, rotationFile, type LoadPlan } from './load-plan.js';

const SCRIPT = fileURLToPath(new URL('../../bench/analyze.lua', import.meta.url));

/** What one measured load run gave, whichever generator ran it. */
export interface LoadRun {
  requests: number;
  durationSeconds: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  socketErrors: number;
}

/** The run, when every answer was 2xx: a run with refusals or failed sockets would measure a refusal, not a verdict. */
export function allAnswered<T extends LoadRun>(run: T, what: string): T {
  if (run.non2xx > 0 || run.socketErrors > 0) throw new Error(`${what}: ${run.non2xx} answers were not 2xx and ${run.socketErrors} sockets failed`);
  if (run.requests === 0) throw new Error(`${what}: no request was answered`);
  return run;
}

export function wrkAvailable(): Promise<boolean> {
  // wrk has no --version: it prints its version with the usage and exits 1.
  return new Promise((resolve) => execFile('wrk', ['--version'], (error) => resolve(!error || (error as { code?: number }).code === 1)));
}

/** The figures in the line analyze.lua's done() prints, or null when the output has none. */
export function parseWrkSummary(stdout: string): LoadRun | null {
  const line = /^WRK (\d+) (\d+) ([\d.]+) ([\d.]+) (\d+) (\d+)$/m.exec(stdout);
  if (!line) return null;
  const [requests, durationUs, p50Ms, p99Ms, non2xx, socketErrors] = line.slice(1).map(Number);
  return { requests, durationSeconds: durationUs / 1e6, p50Ms, p99Ms, non2xx, socketErrors };
}

/** `timeoutSeconds`: how long wrk waits for an answer before it counts a timeout (wrk's own default is 2 s). */
export async function runWrk(plan: LoadPlan, connections: number, seconds: number, timeoutSeconds?: number): Promise<LoadRun> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-wrk-'));
  const rotation = join(dir, 'rotation.tsv');
  writeFileSync(rotation, rotationFile(plan.rotation));
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, ...(timeoutSeconds ? ['--timeout', `${timeoutSeconds}s`] : []), '-s', SCRIPT, plan.url];
  const env = { ...process.env, ...planEnvironment(plan), BENCH_ROTATION_FILE: rotation };
  try {
    return await new Promise((resolve, reject) => {
      execFile('wrk', args, { env, timeout: (seconds + (timeoutSeconds ?? 0) + 30) * 1000 }, (error, stdout, stderr) => {
        const run = parseWrkSummary(stdout);
        if (error || !run) return reject(new Error(`wrk failed: ${error?.message ?? ''}\n${stdout}${stderr}`));
        resolve(run);
      });
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
