// The path a user runs: analyze/free on the embedded devnet (chain reads, holdings, prices), a fleet and new wallets, and a paid call.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, printComparison, runLoad, spawnNode, stop, type LoadResult } from './harness.js';
import { measurePaidLatency } from './paid-latency.js';

/** A fleet: this many wallets in turn, each evaluated again while its chain facts are cached. */
const FLEET_WALLETS = 1_000;

interface DevnetScenarioOptions {
  connections: number;
  seconds: number;
  /** The flags the service ships with (package.json's start script). */
  nodeFlags: string[];
}

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const walletFor = (n: number) => `0x${(n % 1_000_000 + 1).toString(16).padStart(40, '0')}`;

/** Runs both devnet scenarios against `echo`, a trivial uWS echo measured in the same run. */
export async function runDevnetScenarios(echo: LoadResult, options: DevnetScenarioOptions): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-devnet-'));
  const port = await freePort();
  // No REGISTRY_FILE and no RPC_URL: the embedded devnet, as `npm start` runs by default.
  const service = await spawnNode(
    here('../src/main.js'), [], { PORT: String(port), DATA_DIR: dataDir, RATE_LIMITS: 'off', MCP_SESSIONS_PER_IP: '1000' },
    /listening on/, options.nodeFlags, 120_000,
  );
  try {
    const base = `http://127.0.0.1:${port}`;
    const assets = (await (await fetch(`${base}/api/v1/assets`)).json()) as { symbol: string; contract_address: string }[];
    const tsla = assets.find((asset) => asset.symbol === 'TSLA')!;
    const body = (wallet: (n: number) => string) => (n: number) =>
      JSON.stringify({ wallet: wallet(n), asset: tsla.symbol, contract_address: tsla.contract_address, side: 'buy', amount: 1 });
    const url = `${base}/api/v1/analyze/free`;
    const load = { url, connections: options.connections, seconds: options.seconds };
    // One pass over the fleet first, so its caches are warm as a running service's would be.
    await runLoad({ ...load, label: 'warm-up', seconds: 3, body: body((n) => walletFor(n % FLEET_WALLETS)) });
    const fleet = await runLoad({ ...load, label: `devnet, fleet of ${FLEET_WALLETS}`, body: body((n) => walletFor(n % FLEET_WALLETS)) });
    printComparison(echo, fleet);
    const fresh = await runLoad({ ...load, label: 'devnet, new wallet each', body: body((n) => walletFor(FLEET_WALLETS + n)) });
    printComparison(echo, fresh);
    const trade = (n: number) => ({ wallet: `0x${(0xbe000000 + n).toString(16).padStart(40, '0')}`, asset: tsla.symbol, contract_address: tsla.contract_address, side: 'buy', amount: 1 });
    await measurePaidLatency(base, trade);
  } finally {
    await stop(service);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
