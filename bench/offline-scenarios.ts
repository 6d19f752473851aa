// The engine's ceiling: a second service on the offline sample registry (no chain reads), over REST and over MCP.
import { PATHS } from '../src/catalogue/published-facts.js';
import type { Selectable } from './args.js';
import type { LoadPlan } from './load-plan.js';
import { mcpScenario } from './mcp-scenario.js';
import { restVerdict, type LoadGenerator, type Scenario } from './measure.js';
import type { Measurement } from './scenario-rows.js';
import { sampleRegistry, startService, THIS_BUILD, type ServiceBuild } from './service.js';
import { tradeFields } from './trade-body.js';

export const SAMPLE_REGISTRY = sampleRegistry(THIS_BUILD);

/** The wallets of the offline fleet rows, as many as the devnet fleet's. */
export const OFFLINE_FLEET = 1_000;

/** The trades of the offline rows and of the echo: the sample registry's first asset, from a fleet of `walletCycle` wallets in turn (0: a new wallet each request). */
export function offlinePlan(url: string, walletCycle = OFFLINE_FLEET): LoadPlan {
  const { asset, contract_address: contract } = tradeFields(0);
  return { url, asset, contract, walletOffset: 1, walletCycle, mcp: false, rotation: [] };
}

/** A path no route of the service has: the edge row's. */
export const NO_ROUTE = '/no-such-path';

/** The edge answers a path no route has with its own JSON 404. */
function edgeNotFound(status: number, body: string): string | null {
  return status === 404 && body.includes('"code":"not_found"') ? null : 'expected the edge\'s 404 not_found';
}

/** The long row's warm-up: at the 9,000-18,000 req/s this machine gives a fleet, 270,000 to 540,000 more records. */
const LONG_WARM_SECONDS = 30;

export async function runOfflineScenarios(
  build: ServiceBuild, only: Set<Selectable>, generator: LoadGenerator, connections: number, measureRow: (scenario: Scenario) => Promise<Measurement>,
): Promise<Measurement[]> {
  process.stderr.write('starting the service on the offline sample registry\n');
  // One MCP session per connection, and the warm-up's, from the one address the load comes from.
  const service = await startService(build, { REGISTRY_FILE: sampleRegistry(build), MCP_SESSIONS_PER_IP: String(connections * 2) }, 60_000);
  try {
    const rest = offlinePlan(`${service.base}${PATHS.analyzeFree}`);
    const fresh = offlinePlan(rest.url, 0);
    const measurements: Measurement[] = [];
    if (only.has('offline')) {
      // The fleet's warm-up is one pass over exactly its wallets, as on a running service; the new wallets' is other wallets.
      measurements.push(await measureRow({
        id: 'offline', label: `offline registry, fleet of ${OFFLINE_FLEET.toLocaleString('en-US')} wallets`, note: "the engine's ceiling: no chain reads",
        plan: rest, warmUp: { plan: rest, requests: OFFLINE_FLEET }, subject: service.subject, check: restVerdict,
      }));
      measurements.push(await measureRow({
        id: 'offline-fresh', label: 'offline registry, a new wallet every request', note: 'analyze/free',
        plan: { ...fresh, walletOffset: 10_000_001 }, warmUp: { plan: { ...fresh, walletOffset: 1_800_000_000 }, requests: 2_000 }, subject: service.subject, check: restVerdict,
      }));
    }
    if (only.has('edge')) {
      // The echo's own requests, to a path no route has: what the edge costs before any route runs (issue 41's "the edge alone").
      const edge = { ...rest, url: `${service.base}${NO_ROUTE}`, answers: 404 };
      measurements.push(await measureRow({
        id: 'edge', label: 'the edge alone (a path no route has)', note: "the echo's requests, answered 404 by the edge",
        plan: edge, warmUp: { plan: edge, requests: 2_000 }, subject: service.subject, check: edgeNotFound,
      }));
    }
    if (only.has('mcp')) measurements.push(await measureRow(await mcpScenario(rest, `${service.base}${PATHS.mcp}`, service.subject, connections, generator.name)));
    if (only.has('long')) {
      // A service that has run a while: the rows above start one and end near 260,000 records,
      // where the audit index thread's heap once began to cost three times as much (ARCHITECTURE.md "Audit index thread").
      measurements.push(await measureRow({
        id: 'long', label: `offline registry, fleet of ${OFFLINE_FLEET.toLocaleString('en-US')} wallets, after ${LONG_WARM_SECONDS} s more load`,
        note: 'the same fleet, the log some 300,000 records longer or more',
        plan: rest, warmUp: { plan: rest, requests: OFFLINE_FLEET }, warmSeconds: LONG_WARM_SECONDS, subject: service.subject, check: restVerdict,
      }));
    }
    return measurements;
  } finally {
    await service.stop();
  }
}
