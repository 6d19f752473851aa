// Runs the real anvil binary on a free loopback port and makes sure it never outlives this process.
import { freePort } from './free-port.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';

const require = createRequire(import.meta.url);

export interface AnvilOptions {
  chainId: number;
  mnemonic: string;
  accounts: number;
  /** A fixed port (a restart keeps the address clients use); default a free one. */
  port?: number;
  /** Seconds between blocks mined with or without transactions; 0 mines only on transactions. */
  blockTimeSeconds: number;
}

export interface AnvilProcess {
  rpcUrl: string;
  port: number;
  pid: number;
  /** Settles when anvil exits for any reason, with how (`exit code 1`, `signal SIGKILL`). */
  exited: Promise<string>;
  close(): Promise<void>;
}

const READY_TIMEOUT_MS = 15_000;
const PORT_ATTEMPTS = 3;

/**
 * The anvil binary from its platform package. We depend on that package directly rather
 * than on the @foundry-rs/anvil wrapper: the wrapper's other-platform optional packages are
 * not on every registry mirror, and a lock file missing them breaks `npm ci`.
 */
export function anvilBinary(): string {
  const name = process.platform === 'win32' ? 'anvil.exe' : 'anvil';
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const pkg = `@foundry-rs/anvil-${process.platform}-${arch}`;
  try {
    const file = require.resolve(`${pkg}/bin/${name}`);
    if (existsSync(file)) return file;
  } catch {
    // Not installed for this platform; the error below says what to do.
  }
  throw new Error(`devnet: no anvil binary for ${process.platform}-${process.arch}; install ${pkg} or set RPC_URL to a node`);
}

/**
 * Starts anvil and resolves once it answers eth_chainId. A port taken between our probe
 * and anvil's bind makes anvil exit at once; that attempt is retried on a fresh port.
 */
export async function startAnvil(options: AnvilOptions): Promise<AnvilProcess> {
  let lastError: Error | undefined;
  // A fixed port that is taken will not free itself within these attempts: one try, the caller retries later.
  for (let attempt = 0; attempt < (options.port === undefined ? PORT_ATTEMPTS : 1); attempt++) {
    const port = options.port ?? (await freePort());
    const launched = launch(port, options);
    try {
      await waitReady(launched, port, options.chainId);
      return handleFor(launched, port);
    } catch (error) {
      await launched.stop();
      lastError = error as Error;
    }
  }
  throw lastError ?? new Error('devnet: anvil did not start');
}

interface Launched {
  child: ChildProcess;
  exited: Promise<string>;
  /** The end of anvil's stderr, to explain a failed start. */
  stderrTail(): string;
  stop(): Promise<void>;
}

/** Spawns anvil and guards it from the first moment, so even a failed start leaves no orphan. */
function launch(port: number, options: AnvilOptions): Launched {
  const args = [
    '--host', '127.0.0.1', '--port', String(port), '--chain-id', String(options.chainId),
    '--mnemonic', options.mnemonic, '--accounts', String(options.accounts),
    // Arbitrum Orbit chains run the Prague rules; --silent keeps anvil's per-request log out of our pipes.
    '--hardfork', 'prague', '--silent',
    // Mixed mining (ARCHITECTURE.md "Devnet block time"): every transaction is still mined on arrival, so receipts
    // come at once, and a block every blockTimeSeconds keeps chain time with the clock, as on a real
    // chain; without it chain time stood still between transactions and authorizations signed by the
    // clock were judged against a past block.
    ...(options.blockTimeSeconds > 0 ? ['--block-time', String(options.blockTimeSeconds), '--mixed-mining'] : []),
  ];
  const child = spawn(anvilBinary(), args, { stdio: ['ignore', 'ignore', 'pipe'], detached: false });
  const stderr: string[] = [];
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => stderr.push(chunk));
  let spawnError = '';
  child.on('error', (error) => (spawnError = error.message)); // waitReady sees no pid and reports it
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => resolve(signal ? `signal ${signal}` : `exit code ${code}`));
  });
  const watchdog = child.pid === undefined ? null : spawnWatchdog(child.pid);
  track(child);
  return {
    child,
    exited,
    stderrTail: () => `${spawnError}${stderr.join('')}`.slice(-2000).trim(),
    stop: () => stop(child, exited, watchdog),
  };
}

/**
 * The running devnet's handle. The child is unref'd: a devnet never keeps an otherwise
 * finished process alive (the exit hook then kills anvil).
 */
function handleFor(launched: Launched, port: number): AnvilProcess {
  launched.child.unref();
  (launched.child.stderr as Socket | null)?.unref();
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= launched.stop();
    return closing;
  };
  return { rpcUrl: `http://127.0.0.1:${port}`, port, pid: launched.child.pid as number, exited: launched.exited, close };
}


async function waitReady({ child, stderrTail }: Launched, port: number, chainId: number): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) {
      const text = stderrTail();
      throw new Error(`devnet: anvil exited during start-up${text ? `: ${text}` : ''}`);
    }
    const answer = await chainIdAt(port);
    if (answer !== null) {
      if (answer !== chainId) throw new Error(`devnet: port ${port} answers chain ${answer}, not ${chainId}`);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`devnet: anvil did not answer on port ${port} within ${READY_TIMEOUT_MS} ms`);
}

async function chainIdAt(port: number): Promise<number | null> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    });
    const body = (await response.json()) as { result?: string };
    return body.result === undefined ? null : Number(body.result);
  } catch {
    return null;
  }
}

/** Ends anvil (SIGTERM, SIGKILL after 3 s) and its watchdog; resolves once anvil is reaped. */
async function stop(child: ChildProcess, exited: Promise<string>, watchdog: ChildProcess | null): Promise<void> {
  watchdog?.kill('SIGKILL');
  const running = child.pid !== undefined && child.exitCode === null && child.signalCode === null;
  if (running) {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
    await exited;
    clearTimeout(timer);
  }
  untrack(child);
}

/**
 * A SIGKILLed parent runs no hooks, and anvil has no parent-death option, so a tiny shell
 * loop (detached, so it survives a signal to our process group) polls this process and
 * kills anvil once we are gone. It exits by itself when anvil does.
 */
function spawnWatchdog(anvilPid: number): ChildProcess | null {
  if (process.platform === 'win32') return null;
  const script = 'while kill -0 "$1" 2>/dev/null; do kill -0 "$2" 2>/dev/null || exit 0; sleep 1; done; kill -9 "$2" 2>/dev/null';
  const watchdog = spawn('/bin/sh', ['-c', script, 'devnet-watchdog', String(process.pid), String(anvilPid)], {
    stdio: 'ignore',
    detached: true,
  });
  watchdog.on('error', () => undefined);
  watchdog.unref();
  return watchdog;
}

// One set of process hooks for all devnets in this process, installed while any is alive.
const liveChildren = new Set<ChildProcess>();
let guardsInstalled = false;

function track(child: ChildProcess): void {
  liveChildren.add(child);
  installGuards();
}

function untrack(child: ChildProcess): void {
  liveChildren.delete(child);
  if (liveChildren.size === 0) removeGuards();
}

function killAll(): void {
  for (const child of liveChildren) child.kill('SIGKILL');
}

/**
 * A SIGINT/SIGTERM listener disables Node's default "exit on signal". When ours is the only
 * listener we kill anvil and restore that default by re-raising the signal. Otherwise the owner
 * of the other listeners (the service's graceful shutdown, ARCHITECTURE.md "Stopping") stops
 * anvil itself, after the requests in flight are answered: killing it here cut their chain reads
 * and made the stop look like a crash in the log. The exit hook and the watchdog still end an
 * anvil that such an owner never stops.
 */
function onSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return;
  killAll();
  removeGuards();
  process.kill(process.pid, signal);
}

function installGuards(): void {
  if (guardsInstalled) return;
  guardsInstalled = true;
  process.on('exit', killAll);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

function removeGuards(): void {
  if (!guardsInstalled) return;
  guardsInstalled = false;
  process.off('exit', killAll);
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
}
