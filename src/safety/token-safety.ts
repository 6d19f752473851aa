// The token-safety check: contract facts plus a live sell simulation, classified, cached and flagged in the store.
import { getAddress, type Address, type PublicClient } from 'viem';
import { ReadCache } from '../store/read-cache.js';
import { dangerKey, safetyKey } from '../store/keys.js';
import type { Registry } from '../registry/registry.js';
import type { CacheStore } from '../store/cache-store.js';
import { readContractFacts } from './contract-facts.js';
import type { ProbeCode } from './probe-code.js';
import { simulateSell, type SellSimulation } from './sell-simulation.js';
import { classify, type Severity } from './severity.js';

/** The spec's TokenSafety response. */
export interface TokenSafetyReport {
  severity: Severity;
  is_honeypot: boolean;
  risk_factors: string[];
  owner_renounced: boolean;
  owner_is_multisig: boolean;
  sell_simulation: SellSimulation | Record<string, never>;
}

export interface TokenSafetyDeps {
  client: PublicClient;
  registry: Registry;
  store: CacheStore;
  code: ProbeCode;
  now: () => number;
}

export interface TokenSafetyOptions {
  /** Reuse of one address's result in this process; default 60 s. */
  cacheTtlMs?: number;
  /** Lifetime of `safety:<address>`, which verdicts report as contract_risk; default 10 min. */
  latestTtlMs?: number;
  /** Lifetime of a danger flag (ARCHITECTURE.md "Danger flag": 24 h). */
  dangerTtlMs?: number;
}

/**
 * Rejects (never answers `safe`) when the node or the store fails. Every fresh result is
 * written to `safety:<address>`; a `danger` result also flags `danger:<address>` for 24 h,
 * which denies the next evaluation of the contract whatever else holds.
 */
export class TokenSafetyChecker {
  private readonly cache: ReadCache<TokenSafetyReport>;
  private readonly latestTtlMs: number;
  private readonly dangerTtlMs: number;

  constructor(private readonly deps: TokenSafetyDeps, options: TokenSafetyOptions = {}) {
    this.cache = new ReadCache(options.cacheTtlMs ?? 60_000, deps.now);
    this.latestTtlMs = options.latestTtlMs ?? 10 * 60_000;
    this.dangerTtlMs = options.dangerTtlMs ?? 24 * 60 * 60_000;
  }

  check(contract: string): Promise<TokenSafetyReport> {
    const address = getAddress(contract.toLowerCase());
    return this.cache.get(address, () => this.run(address));
  }

  private async run(address: Address): Promise<TokenSafetyReport> {
    const { client, registry } = this.deps;
    const multicall3 = getAddress(registry.multicall3);
    const facts = await readContractFacts(client, multicall3, address);
    const listed = registry.lists(address);
    const decimals = registry.byAddress(address)?.decimals ?? facts.decimals ?? 18;
    const sell = facts.hasCode ? await simulateSell({ client, multicall3, venue: registry.venue, code: this.deps.code }, address, decimals) : null;
    const findings = classify({ facts, sell, listed });
    const report: TokenSafetyReport = {
      severity: findings.severity,
      is_honeypot: findings.is_honeypot,
      risk_factors: findings.risk_factors,
      owner_renounced: facts.owner.kind === 'renounced',
      owner_is_multisig: facts.owner.kind === 'multisig',
      sell_simulation: sell ?? {},
    };
    await this.remember(address, report);
    return report;
  }

  private async remember(address: Address, report: TokenSafetyReport): Promise<void> {
    const entry = JSON.stringify({ severity: report.severity, risk_factors: report.risk_factors, checked_at: this.deps.now() });
    const writes = [this.deps.store.set(safetyKey(address), entry, this.latestTtlMs)];
    if (report.severity === 'danger') writes.push(this.deps.store.set(dangerKey(address), entry, this.dangerTtlMs));
    await Promise.all(writes);
  }
}

