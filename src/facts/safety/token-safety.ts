// The token-safety check: contract facts plus a live sell simulation, classified, cached and flagged in the store.
import { getAddress, type Address, type PublicClient } from 'viem';
import { findBalanceSlot, type BalanceSlot } from '../chain/balance-slot.js';
import { ReadCache } from '../../store/read-cache.js';
import { dangerKey, safetyKey } from '../../store/keys.js';
import type { Registry } from '../registry/registry.js';
import type { CacheStore } from '../../store/cache-store.js';
import { readCheck } from './check-result.js';
import { contractFacts, type SecondRoundFacts } from './contract-facts.js';
import { readFirstRound } from './first-round.js';
import { outsideCalls, ownersAnswered, readableTrace, registryAddresses } from './outside-calls.js';
import type { ProbeCode } from './probe-code.js';
import { planCheck, runSecondRound } from './second-round.js';
import { provenSell } from './proven-sell.js';
import { notSimulated, type SellSimulation } from './sell-simulation.js';
import { classify, type SafetyEvidence, type Severity } from './severity.js';

/** Round trip 2 skipped: an address without code, or a contract that is no token. */
const NOTHING_READ: SecondRoundFacts = { ownerCode: null, ownerAnswers: null, implementationCode: null, beaconImplementation: null };

/** Any address: only its balance slot's position matters, which is the same for every holder. */
const PROBE_HOLDER = '0x00000000000000000000000000000000000050fe';

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
  /**
   * Best a client that batches JSON-RPC (requests made in the same tick share one HTTP request):
   * the facts and the simulation then cost two round trips a cold check.
   */
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
  private quoteSlot: Promise<BalanceSlot | null> | null = null;
  private readonly head: { number: bigint | null } = { number: null };

  constructor(private readonly deps: TokenSafetyDeps, options: TokenSafetyOptions = {}) {
    this.cache = new ReadCache(options.cacheTtlMs ?? 60_000, deps.now);
    this.latestTtlMs = options.latestTtlMs ?? 10 * 60_000;
    this.dangerTtlMs = options.dangerTtlMs ?? 24 * 60 * 60_000;
  }

  check(contract: string): Promise<TokenSafetyReport> {
    const address = getAddress(contract.toLowerCase());
    return this.cache.get(address, () => this.run(address));
  }

  /**
   * Finds the venue quote token's balance slot (and loads the probe's code) ahead of the
   * first check, so a cold check stays at two round trips. A failure is forgotten and tried again by the next check.
   */
  prepare(): Promise<BalanceSlot | null> {
    // The probe's code is loaded now too: a first check that waited for it would split its second round trip.
    this.deps.code.safetyProbe().catch(() => undefined);
    if (this.quoteSlot === null) {
      const quote = this.deps.registry.venue?.quote_token.address;
      this.quoteSlot = quote ? findBalanceSlot(this.deps.client, quote, PROBE_HOLDER, null) : Promise.resolve(null);
      this.quoteSlot.catch(() => {
        this.quoteSlot = null;
      });
    }
    return this.quoteSlot;
  }

  /** Round trip 1 reads, round trip 2 simulates and traces (ARCHITECTURE.md "Token safety"). */
  private async run(address: Address): Promise<TokenSafetyReport> {
    const { client, registry } = this.deps;
    const deps = { client, multicall3: getAddress(registry.multicall3), venue: registry.venue, code: this.deps.code, quoteSlot: () => this.prepare(), head: this.head };
    const read = await readFirstRound(deps, address);
    const first = { ...read, decimals: registry.byAddress(address)?.decimals ?? read.decimals };
    const listed = registry.lists(address);
    if (first.code === '0x' || (first.marks.found === null && first.marks.balanceOfReverts)) {
      const facts = contractFacts(first, NOTHING_READ);
      const sell = facts.hasCode ? notSimulated('the contract does not answer balanceOf(address); it is not an ERC-20 token', true) : null;
      return this.report(address, { facts, sell, listed }, sell);
    }
    const plan = planCheck(first, registry.venue, registryAddresses(registry));
    const second = await runSecondRound(client, plan, address);
    const facts = contractFacts(first, second.facts, plan.scan);
    const { sell, unchecked, admins, sequence } = readCheck(plan, second, facts);
    const traced = readableTrace(second.trace, first.marks.found !== null || plan.traceFromHolder);
    // Code with no call instruction asks no other contract, traced or not (ARCHITECTURE.md "Token safety").
    const outside = facts.makesCalls === false ? [] : traced === null ? null : outsideCalls(traced, address, registryAddresses(registry), ownersAnswered(second.legs ?? new Map()));
    return this.report(address, { facts, sell, listed, outside, unchecked, admins, sequence }, sell);
  }

  private async report(address: Address, evidence: SafetyEvidence, sell: SellSimulation | null): Promise<TokenSafetyReport> {
    const findings = classify(evidence);
    const report: TokenSafetyReport = {
      severity: findings.severity,
      is_honeypot: findings.is_honeypot,
      risk_factors: findings.risk_factors,
      // A renounced owner beside a live admin is not renounced (ARCHITECTURE.md "Token safety").
      owner_renounced: evidence.facts.owner.kind === 'renounced' && (evidence.admins ?? []).length === 0,
      owner_is_multisig: evidence.facts.owner.kind === 'multisig',
      sell_simulation: sell ?? {},
    };
    await this.remember(address, report, evidence.facts.decimals);
    return report;
  }

  /** `sell_proven`: the largest sell seen at once, which an evaluation holds the trade's own amount to (ARCHITECTURE.md "Token safety"). */
  private async remember(address: Address, report: TokenSafetyReport, decimals: number | null): Promise<void> {
    const proven = provenSell(report.sell_simulation, decimals);
    const entry = JSON.stringify({ severity: report.severity, risk_factors: report.risk_factors, checked_at: this.deps.now(), ...(proven ? { sell_proven: proven } : {}) });
    const writes = [this.deps.store.set(safetyKey(address), entry, this.latestTtlMs)];
    if (report.severity === 'danger') writes.push(this.deps.store.set(dangerKey(address), entry, this.dangerTtlMs));
    await Promise.all(writes);
  }
}

