// Starts the service for a bench as `npm start` runs it: the same node flags, the default chain unless told otherwise.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, spawnNode, stop } from './harness.js';

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

export interface RunningService {
  base: string;
  pid: number;
  stop: () => Promise<void>;
}

/** The node flags of a start script such as "npm run build && node --max-semi-space-size=32 dist/src/main.js". */
export function nodeFlagsOf(startScript: string): string[] {
  const command = /\bnode((?:\s+--\S+)*)\s+\S*main\.js\b/.exec(startScript);
  if (!command) throw new Error(`package.json's start script does not run node on main.js: ${startScript}`);
  return command[1].trim().split(/\s+/).filter(Boolean);
}

/** The flags `npm start` gives node, read from package.json so the bench measures the service as it ships. */
export function startFlags(): string[] {
  const manifest = JSON.parse(readFileSync(here('../../package.json'), 'utf8')) as { scripts: { start: string } };
  return nodeFlagsOf(manifest.scripts.start);
}

/**
 * The service on a free port with its own data folder and RATE_LIMITS=off; `env` adds to that.
 * REGISTRY_FILE and RPC_URL are dropped from the bench's own environment, so without them in
 * `env` the service runs on the embedded devnet, as `npm start` does by default.
 */
export async function startService(env: NodeJS.ProcessEnv, readyWithinMs: number): Promise<RunningService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-service-'));
  const port = await freePort();
  let child: ChildProcess;
  try {
    child = await spawnNode(
      here('../src/main.js'), [],
      { REGISTRY_FILE: undefined, RPC_URL: undefined, PORT: String(port), DATA_DIR: dataDir, RATE_LIMITS: 'off', ...env },
      /listening on/, startFlags(), readyWithinMs,
    );
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  return {
    base: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    stop: async () => {
      await stop(child);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
