// `npm run bench`: analyze/free under load versus a trivial uWS echo server, measured in the same run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, printComparison, runLoad, spawnNode, stop, type LoadResult } from './harness.js';
import { tradeBody } from './trade-body.js';
import { runWrk, wrkAvailable } from './wrk.js';
import { runMcpLoad } from './mcp-scenario.js';
import { runDevnetScenarios } from './devnet-scenarios.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64);
/** Microseconds of CPU a second echo burns per request; 0 skips that comparison. */
const burnUs = Number(process.env.BENCH_BURN_US ?? 0);
/** The flags `npm start` gives node (package.json), so the bench measures the service as it ships. */
const SERVICE_NODE_FLAGS = ['--max-semi-space-size=32'];
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-data-'));
  const echoPort = await freePort();
  const servicePort = await freePort();
  const echo = await spawnNode(here('./echo-server.js'), [String(echoPort)], {}, /listening/);
  const service = await spawnNode(
    here('../src/main.js'),
    [],
    {
      PORT: String(servicePort),
      DATA_DIR: dataDir,
      RATE_LIMITS: 'off',
      AUDIT_FSYNC: process.env.AUDIT_FSYNC ?? 'batch',
      // The core path on the sample registry: no chain reads in the measurement.
      REGISTRY_FILE: here('../../registry/sample-registry.json'),
      MCP_SESSIONS_PER_IP: String(connections * 2),
    },
    /listening on/,
    SERVICE_NODE_FLAGS,
  );
  try {
    process.stdout.write(`${connections} connections, ${seconds} s each, distinct wallets per request\n`);
    await runLoad({ label: 'warm-up', url: `http://127.0.0.1:${servicePort}/api/v1/analyze/free`, connections, seconds: 2, body: tradeBody });
    const baseline = await runLoad({ label: 'uWS echo', url: `http://127.0.0.1:${echoPort}/echo`, connections, seconds, body: tradeBody });
    const subject = await runLoad({ label: 'analyze/free (full path)', url: `http://127.0.0.1:${servicePort}/api/v1/analyze/free`, connections, seconds, body: tradeBody });
    printComparison(baseline, subject);
    if (burnUs > 0) await compareBurningEcho(subject);
    process.stdout.write('\nMCP: tools/call evaluate_trade, one session per connection\n');
    const mcp = await runMcpLoad(`http://127.0.0.1:${servicePort}/mcp-http/mcp`, connections, seconds);
    printComparison(subject, mcp);
    if (await wrkAvailable()) {
      process.stdout.write('\nwrk -t1 (lighter load generator, closer to the true ceiling)\n');
      const wrkBaseline = await runWrk('uWS echo (wrk)', `http://127.0.0.1:${echoPort}/echo`, connections, seconds);
      const wrkSubject = await runWrk('analyze/free (wrk)', `http://127.0.0.1:${servicePort}/api/v1/analyze/free`, connections, seconds);
      printComparison(wrkBaseline, wrkSubject);
    } else {
      process.stdout.write('\nwrk not installed (apt-get install wrk): skipping the wrk comparison\n');
    }
    if (process.env.BENCH_DEVNET !== '0') {
      process.stdout.write('\nThe embedded devnet (chain reads on the path), against the autocannon echo above\n');
      await runDevnetScenarios(baseline, { connections, seconds, nodeFlags: SERVICE_NODE_FLAGS });
    }
  } finally {
    await Promise.all([stop(echo), stop(service)]);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The same load on an echo that burns `burnUs` of CPU per request on its event loop: a
 * server with no pipeline at all but the evaluation's cost, so its latency is what the
 * machine allows at that cost with the load generator sharing the cores.
 */
async function compareBurningEcho(subject: LoadResult): Promise<void> {
  const port = await freePort();
  const burning = await spawnNode(here('./echo-server.js'), [String(port), String(burnUs)], {}, /listening/);
  try {
    const label = `uWS echo burning ${burnUs} us`;
    printComparison(await runLoad({ label, url: `http://127.0.0.1:${port}/echo`, connections, seconds, body: tradeBody }), subject);
  } finally {
    await stop(burning);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
