// Runs the real service as `npm start` does, in a process of its own: for tests that kill it, restart it or watch it refuse to start.
import { spawn, type ChildProcess } from 'node:child_process';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';

/** What `npm start` runs: the service bundled into one file (scripts/bundle.mjs). */
const SERVICE = fileURLToPath(new URL('../../service.js', import.meta.url));

export interface ServiceProcess {
  child: ChildProcess;
  /** http://HOST:PORT as the service printed it; empty when it exited without listening. */
  base: string;
  /** What it wrote to stderr so far (its log). */
  output(): string;
  /** Sends `signal` and resolves once the process has exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

const started: ChildProcess[] = [];
// A test that failed halfway must not leave a service running: every process is ended by its own id.
after(() => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** Resolves once the process has exited (at once if it already has). */
export function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
}

/**
 * Starts `node dist/service.js` with `env` over this process's environment (a variable set to
 * undefined is removed from it); resolves once it listens and has answered one request: main.ts
 * installs its signal handlers after it prints the address and before it serves anything, so a
 * SIGTERM sent on the printed address alone could find none and kill it uncleanly. With `expectExit`, a start that ends in
 * an exit resolves too (base empty), and one that listens after all is returned for the caller's
 * assertion to fail on. The service writes only to stderr, plain text before it runs and pino JSON after.
 * With `wrap`, the service runs under that command (e.g. `unshare --pid --fork --kill-child`), which must
 * pass its stderr through and end the service when it ends itself.
 */
export async function startServiceProcess(
  env: Record<string, string | undefined>, options: { expectExit?: boolean; wrap?: readonly string[] } = {},
): Promise<ServiceProcess> {
  const merged: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete merged[name];
  const [command, ...args] = [...(options.wrap ?? []), process.execPath, SERVICE];
  const child = spawn(command, args, { env: merged, stdio: ['ignore', 'ignore', 'pipe'] });
  started.push(child);
  let output = '';
  const base = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const listening = /listening on (http:\/\/[^\s"]+)/.exec(output);
      if (listening) resolve(listening[1]);
    });
    child.once('exit', (code, signal) => {
      if (options.expectExit) resolve('');
      else reject(new Error(`service exited (${code ?? signal}) before listening:\n${output}`));
    });
  });
  // Any answer will do, and none if it exits meanwhile: the request only proves the start-up code has run to its end.
  if (base !== '') await fetch(`${base}/healthz`).then((answer) => answer.arrayBuffer(), () => undefined);
  return {
    child,
    base,
    output: () => output,
    stop: async (signal = 'SIGTERM') => {
      child.kill(signal);
      await exited(child);
    },
  };
}
