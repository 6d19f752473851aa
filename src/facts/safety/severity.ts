// The token-safety rules: evidence in, severity and `CODE: words` risk factors out (pure, deterministic).
import { adminFindings } from './admin-findings.js';
import type { LiveAdmin } from './admin-powers.js';
import type { ContractFacts, OwnerFacts } from './contract-facts.js';
import { controlFindings, type ControlEvidence } from './control-findings.js';
import type { Capability } from './selectors.js';
import type { OwnerPower } from './owner-powers.js';
import type { SequencePower } from './owner-sequences.js';
import { sequenceFindings } from './sequence-findings.js';
import type { SellSimulation, SimulatedSell } from './sell-simulation.js';
import { HOLD_HORIZONS } from './simulation-bundle.js';
import { SIZED_SELL_SHARE_BPS } from './sized-sell.js';
import { durationWords } from './simulation-outcome.js';
import { TIMELOCK_MIN_DELAY_SECONDS } from './timelock-probe.js';

export type Severity = 'safe' | 'warn' | 'danger';

/** A buy or sell tax above this is `danger`; above TAX_WARN_BPS it is `warn`. */
export const TAX_DANGER_BPS = 3_000;
export const TAX_WARN_BPS = 100;

export interface SafetyEvidence extends ControlEvidence {
  facts: ContractFacts;
  sell: SellSimulation | null;
  /** The registry's own contract (listed asset, service token or settlement asset). */
  listed: boolean;
  /** Admins beside owner() that the code let through where it refused a stranger; undefined when not probed. */
  admins?: readonly LiveAdmin[];
  /** What the owner's two-step probe showed; null or undefined when nothing (or not probed). */
  sequence?: SequencePower | null;
}

export interface SafetyFindings {
  severity: Severity;
  is_honeypot: boolean;
  risk_factors: string[];
}

export interface Finding {
  level: Severity | 'advisory';
  text: string;
}

/**
 * Rules (the methodology documents them):
 * - danger: no code; no balanceOf (not a token); a holder that acquired the token as a buyer
 *   does (bought through the pool, sent by a real holder, else given by state override) cannot
 *   sell it, by transfer or by approve-and-transferFrom, at once and after every hold, or could
 *   and then cannot after a longer hold, or a holder without code (a plain wallet) cannot send it
 *   with its own transfer after the longest hold, or a sell of a sizeable share of the pool's depth
 *   reverts while smaller ones go through (honeypot); a buy or sell tax above 30% on any sell.
 * - warn: a buy or sell tax above 1%; a sell locked at first but open after a hold; a refused
 *   buy or wallet transfer; no sell could be simulated; blacklist, pause or fee-setting
 *   functions; mint with an owner that is one key (EOA, a non-multisig contract, or a role
 *   holder when there is no owner()); an upgradeable proxy; SELFDESTRUCT; DELEGATECALL.
 * - Privileged functions are ADVISORY (no effect) when owner() is renounced and no admin beside
 *   it is live (admin-findings.ts), mint when the
 *   owner is a multisig of threshold 2 or more, and all of them for the registry's own
 *   tokens: a regulated issuer of tokenized stocks mints, and may pause and freeze, by design.
 *   Behaviour (honeypot, tax, no code) is never excused.
 */
export function classify(evidence: SafetyEvidence): SafetyFindings {
  const { facts, sell } = evidence;
  if (!facts.hasCode) return { severity: 'danger', is_honeypot: false, risk_factors: [`NO_CODE: no contract code at ${facts.address}; it is not a token`] };
  const admins = adminFindings(evidence.admins ?? [], evidence.listed, facts.owner.kind === 'renounced');
  const sequence = sequenceFindings(evidence.sequence, controller(facts.owner), evidence.listed);
  const findings = [...sellFindings(sell), ...powerFindings(evidence), ...sequence, ...admins, ...capabilityFindings(evidence), ...controlFindings(evidence)];
  const rank = { danger: 0, warn: 1, safe: 2, advisory: 3 } as const;
  const ordered = mergeFindings(findings).sort((a, b) => rank[a.level] - rank[b.level]);
  return {
    severity: ordered.some((f) => f.level === 'danger') ? 'danger' : ordered.some((f) => f.level === 'warn') ? 'warn' : 'safe',
    is_honeypot: isHoneypot(sell),
    risk_factors: ordered.map((f) => (f.level === 'advisory' ? `ADVISORY: ${f.text}` : f.text)),
  };
}

function sellFindings(sell: SellSimulation | null): Finding[] {
  if (sell?.not_a_token) return [{ level: 'danger', text: 'NOT_A_TOKEN: the contract does not answer balanceOf(address); it is not an ERC-20 token' }];
  if (sell === null || !sell.simulated) {
    return [{ level: 'warn', text: `SELL_NOT_SIMULATED: ${sell?.detail ?? 'no sell simulation ran'}; the token may not be sellable` }];
  }
  const findings: Finding[] = [];
  const got = ACQUIRED[sell.method ?? 'state_override'];
  const sold = sell.sold_via === 'venue_v4' ? 'sell into the venue pool' : 'transfer onward';
  const reason = sell.revert_reason ?? 'reverted';
  const wallet = sell.sold_via === 'venue_v4' && sell.wallet_transfer_ok ? '; transfers to a wallet go through, so the block is on selling' : '';
  const [path, verdict] = worstPath(sell);
  if (verdict.kind === 'trap') {
    findings.push({ level: 'danger', text: `HONEYPOT: a holder that ${got} could not sell: its ${sold}${path} ${verdict.words} (${reason})${wallet}; holders cannot sell` });
  } else if (verdict.kind === 'delayed') {
    findings.push({ level: 'warn', text: `SELL_DELAYED: a holder that ${got} could not ${sold}${path} at once (${reason}) but could ${verdict.words}; sells are locked for a while after buying` });
  } else if (sell.wallet_transfer_ok === false) {
    findings.push({ level: 'warn', text: `TRANSFER_BLOCKED: a holder that ${got} could sell but not transfer to a wallet (${reason})` });
  }
  if (verdict.kind !== 'trap' && sell.own_transfer_ok === false) {
    const why = verdict.kind === 'open' ? ` (${reason})` : '';
    findings.push({ level: 'danger', text: `HONEYPOT: a wallet without code (as people hold tokens) could not send the token with its own transfer after holding ${days(Number(HOLD_HORIZONS[HOLD_HORIZONS.length - 1].seconds))}${why}, while holders that are contracts could; only contracts can move it` });
  }
  if (verdict.kind !== 'trap' && sell.sell_fresh_ok === true && sell.sized_sell_ok === false) {
    findings.push({ level: 'danger', text: `HONEYPOT: a sell of ${sell.sized_sell_amount} base units at once (${Number(SIZED_SELL_SHARE_BPS) / 100}% of the token's side of the pool) reverted, while smaller sells went through; holders cannot sell a sizeable amount` });
  }
  if (sell.buy_ok === false) {
    findings.push({ level: 'warn', text: 'BUY_REVERTS: a buy through the venue pool (or a real holder\'s transfer) reverted; the sell was simulated from a balance written by state override' });
  }
  // Named when only a held sell lost that much: a tax that starts after launch.
  const worstSells = (sell.sells ?? []).filter((leg) => leg.ok && leg.sell_tax_bps === sell.sell_tax_bps);
  const when = worstSells.length > 0 && worstSells.every((leg) => leg.held_seconds > 0) ? ` after holding ${days(worstSells[0].held_seconds)}` : '';
  findings.push(...taxFindings('BUY', 'a simulated buy delivered', sell.buy_tax_bps), ...taxFindings('SELL', `a simulated ${sold}${when} delivered`, sell.sell_tax_bps));
  return findings;
}

type Verdict = { kind: 'open' } | { kind: 'delayed' | 'trap'; words: string };

/** The holder acquired the token, and a sell by some path reverted for good (at the last horizon, or after it had worked). */
export function isHoneypot(sell: SellSimulation | null): boolean {
  if (sell === null || !sell.simulated) return false;
  return worstPath(sell)[1].kind === 'trap' || sell.own_transfer_ok === false || (sell.sell_fresh_ok === true && sell.sized_sell_ok === false);
}

/**
 * Each path (transfer, and approve-and-transferFrom as routers sell) judged over time; the worst
 * wins: a path that fails for good is a trap however the other fares (ARCHITECTURE.md "Token safety").
 * A simulation without the `sells` list is read from its at-once and held flags.
 */
function worstPath(sell: SellSimulation): [string, Verdict] {
  const legs = sell.sells ?? [];
  if (legs.length === 0) {
    const oks = [sell.sell_fresh_ok, sell.sell_held_ok].filter((ok): ok is boolean => ok !== null);
    return ['', timeline(oks.map((ok, i) => ({ held_seconds: i === 0 ? 0 : 86_400, held_blocks: 0, via: 'transfer', ok, sell_tax_bps: null })))];
  }
  const paths = (['transfer', 'transfer_from'] as const).map((via) => [via, timeline(legs.filter((leg) => leg.via === via))] as const);
  const rank = { trap: 0, delayed: 1, open: 2 } as const;
  const [via, verdict] = [...paths].sort((a, b) => rank[a[1].kind] - rank[b[1].kind])[0];
  const same = paths.every(([, v]) => v.kind === verdict.kind);
  return [same ? '' : via === 'transfer' ? ' by transfer' : ' by approve and transferFrom (as routers sell)', verdict];
}

function timeline(legs: readonly SimulatedSell[]): Verdict {
  if (legs.every((leg) => leg.ok)) return { kind: 'open' };
  const firstOk = legs.findIndex((leg) => leg.ok);
  if (firstOk > 0 && legs.slice(firstOk).every((leg) => leg.ok)) return { kind: 'delayed', words: `after holding ${days(legs[firstOk].held_seconds)}` };
  const worked = legs.filter((leg) => leg.ok);
  const failed = legs.filter((leg) => !leg.ok);
  const failedWords = `reverted ${times(failed)}`;
  return { kind: 'trap', words: worked.length === 0 ? failedWords : `went through ${times(worked)} but ${failedWords}` };
}

/** `at once and after holding 12 seconds, 6, 12 and 18 hours and 1, 7 and 30 days`: holds of one unit listed together. */
function times(legs: readonly SimulatedSell[]): string {
  const now = legs.some((leg) => leg.held_seconds === 0) ? ['at once'] : [];
  const held = [...new Set(legs.filter((leg) => leg.held_seconds > 0).map((leg) => durationWords(leg.held_seconds)))];
  const groups: string[][] = [];
  for (const words of held) {
    const last = groups[groups.length - 1];
    if (last && unit(last[0]) === unit(words)) last.push(words);
    else groups.push([words]);
  }
  const list = listWords(groups.map((group) => (group.length === 1 ? group[0] : `${listWords(group.map((words) => words.split(' ')[0]))} ${unit(group[0])}s`)));
  const later = held.length === 0 ? [] : [`after holding ${list}`];
  return [...now, ...later].join(' and ');
}

/** `hour` of `6 hours`. */
function unit(words: string): string {
  return words.split(' ')[1].replace(/s$/, '');
}

function days(seconds: number): string {
  return durationWords(seconds);
}

const ACQUIRED: Readonly<Record<NonNullable<SellSimulation['method']>, string>> = {
  venue_v4: 'bought through the venue pool',
  holder_transfer: 'received the token from a real holder',
  state_override: 'was given the token by state override',
};

function taxFindings(side: 'BUY' | 'SELL', how: string, tax: number | null): Finding[] {
  if (tax === null || tax <= TAX_WARN_BPS) return [];
  const extreme = tax > TAX_DANGER_BPS;
  const words = `${how} ${percent(10_000 - tax)} of the tokens sent (${tax} bps taken on transfer)`;
  return [{ level: extreme ? 'danger' : 'warn', text: `${side}_TAX${extreme ? '_EXTREME' : ''}: ${words}` }];
}

const POWER_WORDS: Readonly<Record<OwnerPower['effect'], [string, Severity, string]>> = {
  took: ['OWNER_CAN_SEIZE', 'danger', "took tokens from a holder it named"],
  gave: ['OWNER_CAN_MINT', 'warn', 'gave a holder it named new tokens'],
  blocked: ['OWNER_CAN_BLOCK', 'warn', 'stopped a holder from transferring'],
};

/**
 * Owner powers found by behaviour (the owner called each function of the dispatcher with probing
 * arguments): excused as capabilities are, for the registry's tokens and mint under a multisig.
 * An owner that has renounced is never probed (nobody can call as it). One finding per effect,
 * naming every function that had it.
 */
function powerFindings({ facts, sell, listed }: SafetyEvidence): Finding[] {
  // A listed name that gave or blocked is already a capability finding; one that took is more than its name says.
  const unnamed = (sell?.owner_powers ?? []).filter((power) => power.signature === null || power.effect === 'took');
  return (['took', 'gave', 'blocked'] as const).flatMap((effect) => {
    const names = unnamed.filter((power) => power.effect === effect).map(({ selector, signature }) => signature ?? `the unlisted function ${selector}`);
    if (names.length === 0) return [];
    const [code, level, words] = POWER_WORDS[effect];
    const inert = effect === 'gave' ? inertBecause('mint', facts) : null;
    const excused = listed || inert !== null;
    const why = listed ? ' (a registry issuer control)' : inert ? ` (${inert})` : '';
    return [{ level: excused ? 'advisory' : level, text: `${code}: called by ${controller(facts.owner)}, ${listWords(names)} ${names.length > 1 ? 'each ' : ''}${words}${why}` }];
  });
}

/** `a`, `a and b`, `a, b and c`. */
export function listWords(items: readonly string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/**
 * One line per code: findings that share a code and a level are merged into the first, their
 * words joined, so a result never lists a factor twice (ARCHITECTURE.md "Token safety").
 */
export function mergeFindings(findings: readonly Finding[]): Finding[] {
  const merged = new Map<string, Finding>();
  for (const finding of findings) {
    const code = /^[A-Z_0-9]+/.exec(finding.text)?.[0] ?? finding.text;
    const key = `${finding.level} ${code}`;
    const seen = merged.get(key);
    merged.set(key, seen ? { ...seen, text: `${seen.text}; ${finding.text.slice(code.length + 2)}` } : finding);
  }
  return [...merged.values()];
}

const CAPABILITY_WORDS: Readonly<Record<Exclude<Capability, 'upgrade'>, [string, string]>> = {
  mint: ['MINT_CAPABILITY', 'create new supply'],
  blacklist: ['BLACKLIST_CAPABILITY', 'freeze chosen holders'],
  pause: ['PAUSE_CAPABILITY', 'stop all transfers'],
  feeSetter: ['FEE_SETTER', 'change transfer fees or who pays them'],
};

function capabilityFindings({ facts, listed, admins }: SafetyEvidence): Finding[] {
  const findings: Finding[] = [];
  // A renounced owner beside a live admin is not renounced: its functions answer to the admin.
  const live = (admins ?? []).map((admin) => admin.address);
  const excuse = (level: Severity, why: string | null): Finding['level'] => (listed || why !== null ? 'advisory' : level);
  const suffix = (why: string | null) => (listed ? ' (a registry issuer control)' : why ? ` (${why})` : '');
  for (const [capability, [code, power]] of Object.entries(CAPABILITY_WORDS) as [Exclude<Capability, 'upgrade'>, [string, string]][]) {
    const functions = facts.capabilities.get(capability);
    if (!functions) continue;
    const why = live.length > 0 && facts.owner.kind === 'renounced' ? null : inertBecause(capability, facts);
    findings.push({ level: excuse('warn', why), text: `${code}: ${functions.join(', ')} let ${controller(facts.owner, live)} ${power}${suffix(why)}` });
  }
  // A clone's target is fixed; only EIP-1967 proxies (direct or beacon) can change their code.
  if (facts.proxy && facts.proxy.kind !== 'clone') {
    const admin = facts.proxy.admin ? `, admin ${facts.proxy.admin}` : '';
    const text = `UPGRADEABLE_PROXY: ${proxyWords(facts.proxy.kind)} to implementation ${facts.proxy.implementation}${admin}; the code holders run can change`;
    findings.push({ level: excuse('warn', null), text: text + suffix(null) });
  }
  if (facts.selfdestruct) findings.push({ level: excuse('warn', null), text: `SELFDESTRUCT: the code contains SELFDESTRUCT${suffix(null)}` });
  if (facts.delegatecall) {
    const upgrade = facts.capabilities.get('upgrade');
    const via = upgrade ? ` (${upgrade.join(', ')}: an upgradeable implementation)` : '';
    findings.push({ level: excuse('warn', null), text: `DELEGATECALL: the code can run other contracts' code against its own storage${via}${suffix(null)}` });
  }
  return findings;
}

/** A timelock owner of at least this delay announces every mint ahead (the methodology states it); the timelock probe shows it. */
export { TIMELOCK_MIN_DELAY_SECONDS };
/** A mint cap at most this far above the supply bounds what a timelocked owner can dilute. */
export const TIMELOCK_CAP_HEADROOM_BPS = 1_000;

/**
 * Why a privileged function cannot hurt holders, or null when it can. A capped mint whose owner is
 * a timelock of two days or more, with the cap at most 10% above the supply, is inert: every mint
 * is public two days before it runs and can add a tenth at most (ARCHITECTURE.md "Token safety").
 */
function inertBecause(capability: Capability, facts: ContractFacts): string | null {
  const { owner } = facts;
  if (owner.kind === 'renounced') return 'owner renounced';
  if (capability === 'mint' && owner.kind === 'multisig') return `owner is a ${owner.threshold}-of-${owner.signers ?? '?'} multisig`;
  if (capability !== 'mint' || owner.kind !== 'timelock' || (owner.delaySeconds ?? 0) < TIMELOCK_MIN_DELAY_SECONDS) return null;
  const { cap, totalSupply } = facts;
  if (cap === undefined || cap === null || totalSupply === undefined || totalSupply === null || totalSupply === 0n) return null;
  const headroom = cap > totalSupply ? ((cap - totalSupply) * 10_000n) / totalSupply : 0n;
  if (headroom > BigInt(TIMELOCK_CAP_HEADROOM_BPS)) return null;
  return `capped at ${percent(Number(headroom))} above the supply, announced ${days(owner.delaySeconds!)} ahead`;
}

function controller(owner: OwnerFacts, admins: readonly string[] = []): string {
  switch (owner.kind) {
    case 'none': return 'whoever holds the privileged role (no owner())';
    case 'renounced': return admins.length > 0 ? `the admin ${listWords(admins)} beside the renounced owner` : 'nobody now';
    case 'eoa': return `the owner ${owner.address} (a single key)`;
    case 'multisig': return `the ${owner.threshold}-of-${owner.signers ?? '?'} multisig owner ${owner.address}`;
    case 'timelock': return `the timelock owner ${owner.address} (minimum delay ${days(owner.delaySeconds ?? 0)})`;
    case 'contract': return `the owner contract ${owner.address}${owner.notTimelock ? ` (${owner.notTimelock})` : ''}`;
  }
}

function proxyWords(kind: 'eip1967' | 'beacon' | 'clone'): string {
  return kind === 'eip1967' ? 'an EIP-1967 proxy' : 'an EIP-1967 beacon proxy';
}

function percent(bps: number): string {
  return `${(bps / 100).toLocaleString('en-US', { maximumFractionDigits: 2 })}%`;
}
