// Starts a throwaway real redis-server on a free loopback port for a test file.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { freePort } from '../../src/devnet/free-port.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RedisServer {
  url: string;
  port: number;
  /** Freezes the process (SIGSTOP): connections stay open but nothing answers. */
  pause(): void;
  /** Undoes pause() (SIGCONT). */
  resume(): void;
  /** Stops the server (resuming it first if paused) and removes its working folder. */
  stop(): Promise<void>;
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
 * stopped server at the same address and show that clients reconnect).
 */
export async function startRedisServer(port?: number): Promise<RedisServer> {
  port ??= await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'redis-test-'));
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  await waitForReady(child);
  child.stdout?.resume();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pause: () => {
      child.kill('SIGSTOP');
    },
    resume: () => {
      child.kill('SIGCONT');
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) {
          rmSync(dir, { recursive: true, force: true });
          return resolve();
        }
        child.once('exit', () => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        });
        // A paused process would hold SIGTERM until continued.
        child.kill('SIGCONT');
        child.kill('SIGTERM');
      }),
  };
}
