// Shared bench plumbing: spawn servers and wait for their port.
import { createWriteStream } from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../src/tools/devnet/free-port.js';

export { freePort };

/** Every process the bench started that has not exited, so an interrupted bench can stop them; true for a process group leader. */
const running = new Map<ChildProcess, boolean>();

/**
 * Keeps `child` among the processes terminateRunning() stops until it exits; returns it. A
 * `group` child was spawned `detached` and leads a process group: its own children (tsc under
 * a build script) are stopped with it.
 */
export function tracked<T extends ChildProcess>(child: T, group = false): T {
  running.set(child, group);
  child.once('exit', () => running.delete(child));
  return child;
}

/** Sends SIGTERM to every process the bench started and that still runs (on Ctrl-C: nothing may outlive the bench). */
export function terminateRunning(): void {
  for (const [child, group] of running) {
    try {
      if (group && child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
      else child.kill('SIGTERM');
    } catch {
      // Gone already.
    }
  }
}

/** What each spawned script wrote before it was ready (its start-up log), for a bench that reports it. */
const startOutputs = new WeakMap<ChildProcess, string>();

export function startOutput(child: ChildProcess): string {
  return startOutputs.get(child) ?? '';
}

/**
 * Spawns a node script and resolves once `ready` matches a line of its output. `under` is a command node runs under
 * (valgrind and its options, for bench:instructions): node is then its last argument before node's own.
 */
export function spawnNode(
  script: string, args: string[], env: NodeJS.ProcessEnv, ready: RegExp, nodeFlags: string[] = [], readyWithinMs = 30_000, under: string[] = [],
): Promise<ChildProcess> {
  const command = [...under, process.execPath, ...nodeFlags, script, ...args];
  const child = tracked(spawn(command[0], command.slice(1), { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] }));
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
        startOutputs.set(child, seen);
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
