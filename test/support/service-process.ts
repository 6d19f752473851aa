// Runs the real service as `npm start` does, in a child process: for tests that kill it or watch it refuse to start.
import { spawn, type ChildProcess } from 'node:child_process';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SAMPLE_REGISTRY } from './service.js';

const MAIN = fileURLToPath(new URL('../../src/main.js', import.meta.url));

export interface ServiceProcess {
  child: ChildProcess;
  /** Everything it wrote to stderr so far. */
  output(): string;
}

export const exited = (child: ChildProcess) =>
  new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(null) : child.once('exit', resolve)));

/**
 * Call at a test file's top level. The returned function starts the service on `port` with the
 * sample registry, one scoring thread and the given environment; it resolves once the service
 * listens, or, with `expectExit`, once it exits (or listens after all). Every child still running is killed after the file.
 */
export function useServiceProcesses(): (port: number, env: Record<string, string>, expectExit?: boolean) => Promise<ServiceProcess> {
  const children: ChildProcess[] = [];
  after(() => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return async (port, env, expectExit = false) => {
    const child = spawn(process.execPath, [MAIN], {
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', REGISTRY_FILE: SAMPLE_REGISTRY, WORKERS: '1', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(child);
    let output = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        // Expecting an exit, a service that listens instead is returned too, for the caller's assertion to fail on.
        if (output.includes('listening on')) resolve();
      });
      child.once('exit', (code, signal) => {
        if (expectExit) resolve();
        else reject(new Error(`service exited (${code ?? signal}) before listening:\n${output}`));
      });
    });
    return { child, output: () => output };
  };
}
