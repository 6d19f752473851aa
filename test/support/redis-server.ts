// Starts a throwaway real redis-server on a free loopback port for a test file.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { freePort } from '../../src/tools/devnet/free-port.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RedisServer {
  url: string;
  port: number;
  /** The redis-server process (the bench reads its CPU from /proc). */
  pid: number;
  /** Freezes the process (SIGSTOP): connections stay open but nothing answers. */
  pause(): void;
  /** Undoes pause() (SIGCONT). */
  resume(): void;
  /** Ends the process at once (SIGKILL), as a crashed host would; stop() then only cleans up. */
  kill(): Promise<void>;
  /** False once the process has exited (killed or stopped). */
  alive(): boolean;
  /** The working folder (dump.rdb, the AOF). */
  dir: string;
  /** Stops the server (resuming it first if paused) and removes its working folder unless the caller gave it. */
  stop(): Promise<void>;
}

export interface RedisServerOptions {
  /** A working folder the caller owns and keeps across restarts; default a fresh one removed on stop. */
  dir?: string;
  /** `appendonly yes` with `appendfsync always`, the settings docs/audit-records.md asks for; default no persistence. */
  persistent?: boolean;
  /** More redis-server arguments, e.g. `--cluster-enabled yes` (redis-cluster.ts). */
  args?: readonly string[];
}

export { freePort };

function waitForReady(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${output}`)), 10_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}:\n${output}`));
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`redis-server could not be spawned (is the Debian package installed?): ${error.message}`));
    });
  });
}

/**
 * Starts redis-server on a free port, or on `port` when given (e.g. to restart a
 * stopped server at the same address and show that clients reconnect). Without
 * options it keeps nothing: a restart on a fresh folder is a Redis that lost its data.
 */
export async function startRedisServer(port?: number, options: RedisServerOptions = {}): Promise<RedisServer> {
  port ??= await freePort();
  const owned = options.dir === undefined;
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'redis-test-'));
  const persistence = options.persistent ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence, '--dir', dir, ...(options.args ?? [])],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const removeDir = () => owned && rmSync(dir, { recursive: true, force: true });
  try {
    await waitForReady(child);
  } catch (error) {
    // A server that never became ready (or exited) must not outlive the attempt: it would hold the test process open.
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    removeDir();
    throw error;
  }
  child.stdout?.resume();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pid: child.pid!,
    dir,
    pause: () => {
      child.kill('SIGSTOP');
    },
    resume: () => {
      child.kill('SIGCONT');
    },
    alive: () => child.exitCode === null && child.signalCode === null,
    kill: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        // A killed process has a signal and no exit code, and will not exit again.
        if (child.exitCode !== null || child.signalCode !== null) {
          removeDir();
          return resolve();
        }
        child.once('exit', () => {
          removeDir();
          resolve();
        });
        // A paused process would hold SIGTERM until continued.
        child.kill('SIGCONT');
        child.kill('SIGTERM');
      }),
  };
}
