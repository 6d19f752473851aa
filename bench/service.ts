// Starts a build of the service for a bench as `npm start` runs it: the same node flags, the default chain unless told otherwise.
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, spawnNode, stop } from './harness.js';
import type { Subject } from './measure.js';
import { findChild } from './proc-stat.js';
import { readThreadKinds } from './threads.js';

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

/** A checkout whose service is built: this one, or a --baseline ref's temporary worktree. */
export interface ServiceBuild {
  dir: string;
  /** Its short commit, as the tables name it. */
  commit: string;
}

/** The checkout this bench runs from. */
export const THIS_CHECKOUT = here('../../');
/** This checkout's own build (`npm run bench` builds it first); a run names its commit with run-info's commitLabel(). */
export const THIS_BUILD: ServiceBuild = { dir: THIS_CHECKOUT, commit: 'this checkout' };
/** The devnet's compiled contracts, keyed by their sources' hash: every build may share this checkout's. */
const SOLC_CACHE = join(THIS_CHECKOUT, '.cache', 'solc');
/** Loaded with `-r` into every benched service: it notes which thread runs which worker (see the file). */
const THREAD_LABELS = here('./thread-labels.cjs');

export interface RunningService {
  base: string;
  pid: number;
  /** What the rows of this service measure: its threads by kind, and anvil when the service started one. */
  subject: Subject;
  stop: () => Promise<void>;
}

/** What `npm start` runs: node's flags and the entry file (relative to the checkout), read from a start script such as "exec node --max-semi-space-size=32 dist/service.js". */
export function startCommandOf(startScript: string): { flags: string[]; entry: string } {
  const command = /\bnode((?:\s+--\S+)*)\s+(\S+\.js)\b/.exec(startScript);
  if (!command) throw new Error(`package.json's start script does not run node on a .js file: ${startScript}`);
  return { flags: command[1].trim().split(/\s+/).filter(Boolean), entry: command[2] };
}

/** How `npm start` of that checkout starts the service (older checkouts run dist/src/main.js, newer dist/service.js), so the bench measures it as it ships. */
export function startCommand(dir: string): { flags: string[]; entry: string } {
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { scripts: { start: string } };
  return startCommandOf(manifest.scripts.start);
}

/** The file this checkout's `npm start` runs, for the benches that start the service themselves. */
export function thisService(): string {
  return join(THIS_CHECKOUT, startCommand(THIS_CHECKOUT).entry);
}

/** The build's own sample registry (its format may differ from this checkout's), else this checkout's. */
export function sampleRegistry(build: ServiceBuild): string {
  const own = join(build.dir, 'registry', 'sample-registry.json');
  return existsSync(own) ? own : join(THIS_CHECKOUT, 'registry', 'sample-registry.json');
}

/**
 * The service on a free port with its own data folder and RATE_LIMITS=off; `env` adds to that.
 * REGISTRY_FILE and RPC_URL are dropped from the bench's own environment, so without them in
 * `env` the service runs on the embedded devnet, as `npm start` does by default. `nodeFlags` go after the start
 * script's own (an inspector port, for one); `under` is a command node runs under (spawnNode).
 */
export async function startService(
  build: ServiceBuild, env: NodeJS.ProcessEnv, readyWithinMs: number, nodeFlags: string[] = [], under: string[] = [],
): Promise<RunningService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-service-'));
  const threadsFile = join(dataDir, 'bench-threads.jsonl');
  const port = await freePort();
  const start = startCommand(build.dir);
  let child: ChildProcess;
  try {
    child = await spawnNode(
      join(build.dir, start.entry), [],
      {
        REGISTRY_FILE: undefined, RPC_URL: undefined, DEVNET_CACHE_DIR: SOLC_CACHE, PORT: String(port), DATA_DIR: dataDir, RATE_LIMITS: 'off',
        BENCH_THREADS_FILE: threadsFile, ...env,
      },
      /guardrail listening on/, [...start.flags, ...nodeFlags, '-r', THREAD_LABELS], readyWithinMs, under,
    );
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const pid = child.pid!;
  return {
    base: `http://127.0.0.1:${port}`,
    pid,
    subject: { pid, threadKinds: () => readThreadKinds(threadsFile, pid), companionPid: () => findChild(pid, 'anvil') },
    stop: async () => {
      await stop(child);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
