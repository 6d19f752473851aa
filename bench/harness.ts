// Shared bench plumbing: spawn servers, wait for their port, run autocannon.
import autocannon from 'autocannon';
import { createWriteStream } from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../src/devnet/free-port.js';

export interface LoadResult {
  label: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
}

export { freePort };

/** Spawns a node script and resolves once `ready` matches a line of its output. */
export function spawnNode(
  script: string, args: string[], env: NodeJS.ProcessEnv, ready: RegExp, nodeFlags: string[] = [], readyWithinMs = 30_000,
): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...nodeFlags, script, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      reject(new Error(`${script} did not become ready:\n${seen}`));
    }, readyWithinMs);
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      if (ready.test(seen)) {
        clearTimeout(timer);
        // From here the output (the service's request log) is dropped, not kept.
        child.stdout?.off('data', onData).pipe(createWriteStream('/dev/null'));
        child.stderr?.off('data', onData).pipe(createWriteStream('/dev/null'));
        resolve(child);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}:\n${seen}`)));
  });
}

export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

export interface LoadOptions {
  label: string;
  url: string;
  connections: number;
  seconds: number;
  /** Body for the n-th request, so each can carry a different wallet. */
  body: (n: number) => string;
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  let n = 0;
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.seconds,
    pipelining: 1,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        setupRequest: (request) => ({ ...request, body: options.body(n++) }),
      },
    ],
  });
  return {
    label: options.label,
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}
