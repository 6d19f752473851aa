// The path a user runs: the service on the embedded devnet (chain reads, holdings, prices), a fleet, new wallets, a bearer, a paid call.
import { privateKeyToAccount } from 'viem/accounts';
import { PATHS } from '../src/catalogue/published-facts.js';
import { demoWallets } from '../src/tools/devnet/wallets.js';
import type { Selectable } from './args.js';
import type { LoadPlan, Rotated } from './load-plan.js';
import { restVerdict, type Scenario } from './measure.js';
import { measurePaidLatency } from './paid-latency.js';
import type { PaidResult } from './results.js';
import type { Measurement } from './scenario-rows.js';
import { startService, type ServiceBuild } from './service.js';

/** A fleet: this many wallets in turn, each evaluated again while its chain facts are cached. */
const FLEET_WALLETS = 1_000;
/** New wallets start past the fleet's; warm-ups use wallets far past both, so the measured ones stay new. */
const FRESH_FROM = 1_000_001;
const WARM_FROM = 1_800_000_000;

export interface DevnetRun {
  measurements: Measurement[];
  paid: PaidResult | null;
}

/** The devnet rows `only` selects, each measured by `measureRow`, then the paid table. */
export async function runDevnetScenarios(build: ServiceBuild, only: Set<Selectable>, measureRow: (scenario: Scenario) => Promise<Measurement>): Promise<DevnetRun> {
  process.stderr.write('starting the service on the embedded devnet\n');
  // No REGISTRY_FILE, no RPC_URL: the embedded devnet, as `npm start` runs by default.
  const service = await startService(build, {}, 180_000);
  try {
    const assets = (await (await fetch(`${service.base}${PATHS.assets}`)).json()) as { symbol: string; contract_address: string }[];
    const tsla = assets.find((asset) => asset.symbol === 'TSLA')!;
    const plan = (path: string, walletOffset: number, walletCycle: number, rotation: Rotated[] = []): LoadPlan => ({
      url: `${service.base}${path}`, asset: tsla.symbol, contract: tsla.contract_address, walletOffset, walletCycle, mcp: false, rotation,
    });
    const row = (id: string, label: string, note: string, measured: LoadPlan, warmUp: Scenario['warmUp']): Scenario => ({
      id, label, note, plan: measured, warmUp, subject: service.subject, check: restVerdict,
    });
    const measurements: Measurement[] = [];
    if (only.has('fleet')) {
      const fleet = plan(PATHS.analyzeFree, 1, FLEET_WALLETS);
      // The warm-up is one pass over exactly the fleet's wallets, so every one is cached as on a running service.
      measurements.push(await measureRow(row('fleet', `devnet, fleet of ${FLEET_WALLETS.toLocaleString('en-US')} wallets`, 'analyze/free, wallets in turn', fleet, { plan: fleet, requests: FLEET_WALLETS })));
    }
    if (only.has('fresh')) {
      const warm = { plan: plan(PATHS.analyzeFree, WARM_FROM, 0), requests: 500 };
      measurements.push(await measureRow(row('fresh', 'devnet, a new wallet every request', 'analyze/free, chain reads each time', plan(PATHS.analyzeFree, FRESH_FROM, 0), warm)));
    }
    if (only.has('bearer')) {
      const bearer = plan(PATHS.analyzeTrade, 1, 0, await signedInDemoWallets(service.base));
      const note = 'analyze/trade, 4 demo wallets (tiers 1-3) with their own tokens, in turn';
      measurements.push(await measureRow(row('bearer', 'devnet, REST with a bearer token', note, bearer, { plan: bearer, requests: 500 })));
    }
    const paid = only.has('paid') ? await measurePaidLatency(service.base, paidTrade(tsla)) : null;
    return { measurements, paid };
  } finally {
    await service.stop();
  }
}

/** Signs each demo wallet in (SIWE, as a client would) and pairs it with its token: analyze/trade evaluates only the token's own wallet. */
async function signedInDemoWallets(base: string): Promise<Rotated[]> {
  const signedIn: Rotated[] = [];
  for (const wallet of demoWallets()) {
    const nonce = (await (await fetch(`${base}${PATHS.authNonce}?address=${wallet.address}`)).json()) as { message: string };
    const signature = await privateKeyToAccount(wallet.privateKey).signMessage({ message: nonce.message });
    const answer = await fetch(`${base}${PATHS.authWallet}`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ address: wallet.address, signature }),
    });
    const body = await answer.text();
    if (answer.status !== 200) throw new Error(`sign-in of demo wallet ${wallet.label} answered ${answer.status}: ${body}`);
    signedIn.push({ wallet: wallet.address, header: 'authorization', value: `Bearer ${(JSON.parse(body) as { access_token: string }).access_token}` });
  }
  return signedIn;
}

function paidTrade(asset: { symbol: string; contract_address: string }): (n: number) => Record<string, unknown> {
  return (n) => ({ wallet: `0x${(0xbe000000 + n).toString(16).padStart(40, '0')}`, asset: asset.symbol, contract_address: asset.contract_address, side: 'buy', amount: 1 });
}
