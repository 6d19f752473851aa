// Runs wrk (Debian package) with one thread, when it is installed, for a load generator lighter than Node's.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LoadResult } from './harness.js';

const SCRIPT = fileURLToPath(new URL('../../bench/analyze.lua', import.meta.url));

export function wrkAvailable(): Promise<boolean> {
  return new Promise((resolve) => execFile('wrk', ['--version'], (error) => resolve(!error || (error as { code?: number }).code === 1)));
}

export function runWrk(label: string, url: string, connections: number, seconds: number): Promise<LoadResult> {
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', SCRIPT, url];
  return new Promise((resolve, reject) => {
    execFile('wrk', args, { timeout: (seconds + 30) * 1000 }, (error, stdout) => {
      const line = /WRK (\d+) (\d+) ([\d.]+) ([\d.]+) (\d+)/.exec(stdout);
      if (error || !line) return reject(new Error(`wrk failed: ${error?.message ?? stdout}`));
      const [requests, durationUs, p50, p99, errors] = line.slice(1).map(Number);
      resolve({ label, requestsPerSecond: requests / (durationUs / 1e6), p50Ms: p50, p99Ms: p99, errors, non2xx: 0 });
    });
  });
}
