// GET /api/v1/fleet: each agent of the operator with its limits, today's use of its daily budget and its verdicts of the last 24 hours.
import type { Static } from '@sinclair/typebox';
import type { StoredDelegation } from '../../auth/delegations.js';
import type { AuditLog, AuditRecord } from '../../audit/record/audit-log.js';
import { INPUT_LIMITS } from '../../catalogue/published-facts.js';
import { budgetDay, budgetKey, parseUsedCents } from '../../facts/wallet/daily-budget.js';
import { limitsToWire } from '../../facts/wallet/wallet-limits.js';
import { readPolicy } from '../../facts/wallet/wallet-policy.js';
import { json } from '../../http/responses.js';
import type { PlainResponse } from '../../http/types.js';
import type { FleetAgent, FleetListing } from '../../schemas/fleet.js';
import type { CacheStore } from '../../store/cache-store.js';
import type { Delegations } from '../../auth/delegations.js';

const DAY_MS = 86_400_000;

/**
 * The newest records read per agent for its counts: the most one audit listing gives
 * (`GET /api/v1/audit/wallet/{wallet}?limit=`), so a fleet of 100 reads at most 100 such pages.
 */
export const VERDICTS_READ = INPUT_LIMITS.audit.maxLimit;

export interface FleetListingDeps {
  delegations: Delegations;
  store: CacheStore;
  audit: AuditLog;
  now: () => number;
}

export async function fleetListing(deps: FleetListingDeps, operator: string): Promise<PlainResponse> {
  const fleet = await deps.delegations.fleet(operator);
  const now = deps.now();
  const agents = await Promise.all(fleet.map(({ agent, delegation }) => agentEntry(deps, agent, delegation, now)));
  const body: Static<typeof FleetListing> = { operator, count: agents.length, agents };
  return json(200, body);
}

async function agentEntry(deps: FleetListingDeps, agent: string, delegation: StoredDelegation, now: number): Promise<Static<typeof FleetAgent>> {
  const [{ policy }, usedText, records] = await Promise.all([
    readPolicy(deps.store, agent),
    deps.store.get(budgetKey(agent, now)),
    deps.audit.listWallet(agent, VERDICTS_READ),
  ]);
  const usedUsd = parseUsedCents(usedText) / 100;
  const limitUsd = policy.limits?.dailyNotionalUsd ?? null;
  return {
    agent,
    delegation,
    blocked_assets: policy.blockedAssets,
    limits: limitsToWire(policy.limits),
    daily_budget: { day: budgetDay(now), used_usd: usedUsd, limit_usd: limitUsd, left_usd: limitUsd === null ? null : Math.max(0, Math.round((limitUsd - usedUsd) * 100) / 100) },
    verdicts_24h: verdictCounts(records, now - DAY_MS),
  };
}

/**
 * Counts the verdicts among the agent's newest records (newest first) sealed after `since`; the
 * audit log is the one source every instance shares, so no verdict writes anything more for these
 * counts. Records that are no verdict (a change of limits, the log's own) are not counted.
 */
export function verdictCounts(records: readonly AuditRecord[], since: number): Static<typeof FleetAgent>['verdicts_24h'] {
  const counts = { allow: 0, warn: 0, deny: 0, error: 0 };
  let inside = 0;
  for (const record of records) {
    if (record.ts <= since) break;
    inside += 1;
    if (record.channel === 'config' || record.channel === 'audit') continue;
    counts[record.decision] += 1;
  }
  const capped = records.length >= VERDICTS_READ && inside === records.length;
  return { ...counts, records_read: records.length, capped };
}
