// `npm run bench:audit-bytes -- [--requests N] [--only offline,devnet] [--baseline <ref>]`: disk per verdict, record and
// facts apart: N evaluations against the real service, then the size of audit.log and facts.log over N (ARCHITECTURE.md
// "Recorded facts"). Offline: the sample registry, a fleet of 1,000 wallets in turn; devnet: a new wallet each request.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { PATHS } from '../src/catalogue/published-facts.js';
import { addBaseline, buildBaseline } from './baseline-worktree.js';
import { OFFLINE_FLEET } from './offline-scenarios.js';
import { sampleRegistry, startService, THIS_BUILD, THIS_CHECKOUT, type ServiceBuild } from './service.js';
import { tradeFields } from './trade-body.js';

interface Row {
  build: string;
  scenario: string;
  requests: number;
  recordBytes: number;
  factsBytes: number;
}

const CONCURRENCY = 8;

async function measure(build: ServiceBuild, scenario: 'offline' | 'devnet', requests: number): Promise<Row> {
  const dataDir = mkdtempSync(join(tmpdir(), 'audit-bytes-'));
  const env: NodeJS.ProcessEnv = { DATA_DIR: dataDir, ...(process.env.DEVNET_CACHE_DIR ? { DEVNET_CACHE_DIR: process.env.DEVNET_CACHE_DIR } : {}) };
  if (scenario === 'offline') env.REGISTRY_FILE = sampleRegistry(build);
  const service = await startService(build, env, 180_000).catch((error: unknown) => {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  });
  try {
    // The fleet's wallets in turn offline; wallets no request used before on the devnet.
    const wallet = (n: number) => (scenario === 'offline' ? 1 + (n % OFFLINE_FLEET) : 2_000_000 + n);
    let next = 0;
    const worker = async () => {
      for (let n = next++; n < requests; n = next++) {
        const response = await fetch(`${service.base}${PATHS.analyzeFree}`, {
          method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(tradeFields(wallet(n))),
        });
        if (response.status !== 200) throw new Error(`request ${n} answered ${response.status}: ${await response.text()}`);
        await response.arrayBuffer();
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const size = (name: string) => statSync(join(dataDir, 'audit', name), { throwIfNoEntry: false })?.size ?? 0;
    return { build: build.commit, scenario, requests, recordBytes: size('audit.log') / requests, factsBytes: size('facts.log') / requests };
  } finally {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { requests: { type: 'string', default: '5000' }, only: { type: 'string', default: 'offline,devnet' }, baseline: { type: 'string' } } });
  const requests = Number(values.requests);
  if (!Number.isSafeInteger(requests) || requests < 1) throw new Error(`--requests must be a positive integer, got ${values.requests}`);
  const scenarios = values.only!.split(',').filter((name): name is 'offline' | 'devnet' => name === 'offline' || name === 'devnet');
  const baseline = values.baseline === undefined ? null : addBaseline(THIS_CHECKOUT, values.baseline);
  try {
    if (baseline) await buildBaseline(baseline);
    const rows: Row[] = [];
    for (const build of baseline ? [baseline.build, THIS_BUILD] : [THIS_BUILD]) {
      for (const scenario of scenarios) {
        process.stderr.write(`${build.commit}: ${scenario}, ${requests} evaluations\n`);
        rows.push(await measure(build, scenario, requests));
      }
    }
    const n = (value: number) => value.toFixed(0).padStart(7);
    process.stdout.write(`${'build'.padEnd(14)} ${'scenario'.padEnd(8)} ${'record B'.padStart(8)} ${'facts B'.padStart(8)} ${'total B'.padStart(8)}  per verdict\n`);
    for (const row of rows) {
      process.stdout.write(`${row.build.padEnd(14)} ${row.scenario.padEnd(8)}  ${n(row.recordBytes)}  ${n(row.factsBytes)}  ${n(row.recordBytes + row.factsBytes)}\n`);
    }
  } finally {
    baseline?.remove();
  }
}

main().catch((error: Error) => {
  process.stderr.write(`bench:audit-bytes: ${error.message}\n`);
  process.exitCode = 1;
});
