// The MCP tools other than evaluation: each calls a shared capability and shapes the spec's tool output, or an error.
import { formatUnits } from 'viem';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AuditVerifier } from '../../audit/verify/audit-verifier.js';
import type { BalanceSimulator } from '../../facts/chain/balance-simulation.js';
import { describeFailure, failureOf, logFailure, type Failure, type Logger } from '../../catalogue/failures.js';
import type { Registry } from '../../facts/registry/registry.js';
import type { SellSimulation } from '../../facts/safety/sell-simulation.js';
import type { TokenSafetyChecker } from '../../facts/safety/token-safety.js';
import { failure, result } from './tool-results.js';

export interface CapabilityDeps {
  registry: Registry;
  /** Null offline (no chain node): the chain-backed tools answer `chain_not_configured`. */
  safety: TokenSafetyChecker | null;
  balances: BalanceSimulator | null;
  verifier: AuditVerifier;
  log: Logger;
}

/** Spec: `severity`, `risk_factors`, `sell_simulation_ok`; on error the caller must not assume safe. */
export async function checkTokenSafety(deps: CapabilityDeps, contractAddress: string): Promise<CallToolResult> {
  const notSafe = 'do not assume the token is safe';
  if (deps.safety === null) return refused(failureOf('chain_not_configured'), notSafe);
  try {
    const report = await deps.safety.check(contractAddress);
    const sell = report.sell_simulation as Partial<SellSimulation>;
    return result({ severity: report.severity, risk_factors: report.risk_factors, sell_simulation_ok: sell.ok === true });
  } catch (error) {
    return refused(reported(deps.log, 'check_token_safety', error), notSafe);
  }
}

/** Spec: `before`, `after`, `delta` as token-unit strings. */
export async function simulateBalance(
  deps: CapabilityDeps,
  args: { token_address: string; holder: string; delta: number; decimals?: number },
): Promise<CallToolResult> {
  if (deps.balances === null) return refused(failureOf('chain_not_configured'), 'no balance simulation was produced');
  const decimals = args.decimals ?? 18;
  try {
    const simulated = await deps.balances.simulate({ token: args.token_address, holder: args.holder, delta: args.delta, decimals, balanceSlot: null });
    if (!simulated.ok) return failure(simulated.message, { code: 'validation_failed' });
    const { current, post, delta } = simulated.outcome;
    return result({ before: formatUnits(current, decimals), after: formatUnits(post, decimals), delta: formatUnits(delta, decimals) });
  } catch (error) {
    return refused(reported(deps.log, 'simulate_balance', error), 'no balance simulation was produced');
  }
}

/** Spec: `healthy`, `records_checked`, `first_broken_seq`; on error do not assume the chain is intact. */
export async function verifyAuditTrail(deps: CapabilityDeps, wallet: string, limit: number): Promise<CallToolResult> {
  try {
    const report = await deps.verifier.verifyWallet(wallet, limit);
    return result({ healthy: report.healthy, records_checked: report.total, first_broken_seq: report.firstBrokenSeq });
  } catch (error) {
    return refused(reported(deps.log, 'verify_audit_trail', error, failureOf('audit_unavailable')), 'do not assume the chain is intact');
  }
}

/** Spec: the registry entries with `decimals` and `is_native`. */
export function supportedAssets(registry: Registry): CallToolResult {
  return result({ assets: registry.listing });
}

function reported(log: Logger, tool: string, error: unknown, fallback?: Failure): Failure {
  const failure = describeFailure(error, fallback);
  logFailure(log, `mcp ${tool}`, failure, error);
  return failure;
}

function refused(what: Failure, consequence: string): CallToolResult {
  return failure(`${what.words}; ${consequence}`, { code: what.code });
}
