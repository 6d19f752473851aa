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

/** The trades of the offline rows and of the echo: the sample registry's first asset, a new wallet each request. */
export function offlinePlan(url: string): LoadPlan {
  const { asset, contract_address: contract } = tradeFields(0);
  return { url, asset, contract, walletOffset: 1, walletCycle: 0, mcp: false, rotation: [] };
}

export async function runOfflineScenarios(
  build: ServiceBuild, only: Set<Selectable>, generator: LoadGenerator, connections: number, measureRow: (scenario: Scenario) => Promise<Measurement>,
): Promise<Measurement[]> {
  process.stderr.write('starting the service on the offline sample registry\n');
  // One MCP session per connection, and the warm-up's, from the one address the load comes from.
  const service = await startService(build, { REGISTRY_FILE: sampleRegistry(build), MCP_SESSIONS_PER_IP: String(connections * 2) }, 60_000);
  try {
    const rest = offlinePlan(`${service.base}${PATHS.analyzeFree}`);
    const warmUp = { plan: { ...rest, walletOffset: 1_800_000_000 }, requests: 2_000 };
    const measurements: Measurement[] = [];
    if (only.has('offline')) {
      const scenario: Scenario = {
        id: 'offline', label: 'offline registry, analyze/free', note: "the engine's ceiling: no chain reads", plan: rest, warmUp, subject: service.subject, check: restVerdict,
      };
      measurements.push(await measureRow(scenario));
    }
    if (only.has('mcp')) measurements.push(await measureRow(await mcpScenario(rest, `${service.base}${PATHS.mcp}`, service.subject, connections, generator.name)));
    return measurements;
  } finally {
    await service.stop();
  }
}
