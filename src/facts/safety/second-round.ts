// Round trip 2 of a cold token-safety check: the one eth_simulateV1 (sells, holds, owner reads and probes), one transfer trace, and the code of the owner and implementation.
import { encodeFunctionData, getAddress, numberToHex, type Address, type Hex, type PublicClient } from 'viem';
import { ChainUnavailableError, orOnRevert } from '../chain/errors.js';
import type { Venue } from '../registry/registry.js';
import { adminCandidates, type AdminCandidate } from './admin-candidates.js';
import { scanBytecode, type BytecodeScan } from './bytecode.js';
import { ownerFactsAbi, proxySlots, type SecondRoundFacts } from './contract-facts.js';
import type { FirstRound } from './first-round.js';
import { ownerCalls, traceRequest } from './outside-calls.js';
import { buildPowerProbe, type PowerProbe } from './owner-powers.js';
import { buildSequenceProbe, SEQUENCE_GAP, type SequenceProbe } from './owner-sequences.js';
import { gasTerms, poolOf } from './sell-simulation.js';
import { sizedSellAmount } from './sized-sell.js';
import { buildBundle, runBundle, throwawayAddress, unsupported, type Bundle, type GasTerms, type LegResult, type Overrides, type Pool, type TailBlock } from './simulation-bundle.js';
import { buildTimelockProbe, TIMELOCK_EARLY_GAP, TIMELOCK_LABELS, TIMELOCK_LATE_GAP, TIMELOCK_QUEUE_GAP, type TimelockProbe } from './timelock-probe.js';

/** Everything round trip 2 sends, built from round trip 1's answers alone. */
export interface CheckPlan {
  bundle: Bundle;
  pool: Pool | null;
  gas: GasTerms;
  powers: PowerProbe | null;
  /** The owner's two-step probe (ARCHITECTURE.md "Token safety"); null without a live owner or a proven balance slot. */
  sequence: SequenceProbe | null;
  trace: unknown[];
  /** The trace's sender is a real holder (no proven balance slot): its transfer is funded. */
  traceFromHolder: boolean;
  reads: { owner: Address | null; implementation: Address | null; beacon: Address | null };
  /** The token's code scanned once, for the plan and for contractFacts; null without code. */
  scan: BytecodeScan | null;
  /** Addresses probed as possible admins beside owner(), with where each was found. */
  admins: AdminCandidate[];
}

export interface SecondRound {
  /** Null when the node has no eth_simulateV1. */
  legs: Map<string, LegResult> | null;
  /** The transfer's call tree; null when the node does not trace. */
  trace: Record<string, unknown> | null;
  facts: SecondRoundFacts;
}

/** `excluded`: the registry's contracts (lower case), which are no admin of any token. */
export function planCheck(first: FirstRound, venue: Venue | null, excluded: ReadonlySet<string> = new Set()): CheckPlan {
  const { token } = first;
  const decimals = first.decimals ?? 18;
  const override = first.marks.found ? { slot: first.marks.found, amount: 10n ** BigInt(decimals) } : null;
  const gas = gasTerms(first.head.baseFee ?? 0n);
  const pool = first.poolLive && first.key && first.quoteSlot && venue ? poolOf(venue, first.key, token, first.quoteSlot) : null;
  const router = venue?.swap_helper ? getAddress(venue.swap_helper) : null;
  const scan = first.code === '0x' ? null : scanBytecode(first.code);
  const owner = first.owner !== null && BigInt(first.owner) !== 0n ? first.owner : null;
  const admins = scan ? adminCandidates({ token, owner: first.owner, slots: first.adminSlots, constants: scan.addresses, roleHolders: first.roleHolders, excluded }) : [];
  const powers = override && scan
    ? buildPowerProbe({ token, owner, admins: admins.map((admin) => admin.address), selectors: scan.selectors, slot: override.slot, amount: override.amount })
    : null;
  const sequence = owner && override && scan ? buildSequenceProbe({ token, owner, selectors: scan.selectors, slot: override.slot, amount: override.amount }) : null;
  // A token that owns itself is not driven as a timelock: the lock's grants would write the token's own storage.
  const lock = owner && scan && owner !== token ? buildTimelockProbe({ owner, origin: throwawayAddress(), probeCode: first.probeCode, probe: throwawayAddress() }) : null;
  const tail = tailBlock(token, owner, scan ? [...scan.addresses].filter((a) => a !== token) : [], powers, sequence, lock);
  const sized = pool && first.poolState ? sizedSellAmount(first.poolState.sqrtPriceX96, first.poolState.liquidity, pool.tokenIsCurrency0) : 0n;
  const bundle = buildBundle({ token, probeCode: first.probeCode, head: first.head, pool, holders: first.holders, override, decimals, gas, router, tail, sized: sized > 0n ? sized : null });
  const slots = scan ? proxySlots(first, scan) : null;
  const holder = override === null ? (first.holders.find((h) => h.received > 1n) ?? null) : null;
  const sender = override ?? (holder ? { holder: holder.holder, amount: holder.received / 2n } : null);
  return {
    bundle, pool, gas, powers, sequence,
    trace: traceRequest(token, sender, gas),
    traceFromHolder: holder !== null,
    reads: { owner, implementation: slots?.implementation ?? slots?.clone ?? null, beacon: slots?.implementation ? null : (slots?.beacon ?? null) },
    scan,
    admins,
  };
}

/**
 * After every sell: a funded throwaway asks the owner what it is (multisig threshold and signers)
 * and each address constant of the code for its owner(); then the owner probes and the first step
 * of the two-step probe; then the timelock probe's blocks, and SEQUENCE_GAP after the first
 * block the two-step probe's second step and the timelock probe's late run.
 */
function tailBlock(token: Address, owner: Address | null, candidates: Address[], powers: PowerProbe | null, sequence: SequenceProbe | null, lock: TimelockProbe | null): TailBlock {
  const origin = throwawayAddress();
  const overrides: Overrides = { ...(powers?.overrides ?? {}), ...(sequence?.overrides ?? {}), [origin]: { balance: numberToHex(10n ** 30n) } };
  if (sequence) overrides[token] = { stateDiff: { ...(powers?.overrides[token]?.stateDiff ?? {}), ...sequence.tokenDiff } };
  const asks = ownerCalls(candidates, origin);
  const facts = owner
    ? (['getThreshold', 'getOwners'] as const).map((functionName) => ({ from: origin, to: owner, data: encodeFunctionData({ abi: ownerFactsAbi, functionName }) }))
    : [];
  const [first, ...later] = powers?.blocks ?? [{ labels: [], calls: [] }];
  const steps = sequence ? [sequence.first] : [];
  return {
    blocks: [{
      labels: [...(owner ? ['owner.threshold', 'owner.owners'] : []), ...asks.labels, ...first.labels, ...steps.flatMap((step) => step.labels)],
      calls: [...facts, ...asks.calls, ...first.calls, ...steps.flatMap((step) => step.calls)],
    }, ...later, ...gapBlocks(sequence, lock)],
    overrides,
  };
}

/**
 * The timelock probe's queueing block (with the lock's grants, so the owner reads before it see
 * the owner untouched) and early block; then, SEQUENCE_GAP after the block before them, the
 * two-step probe's second step and the timelock probe's late run (TIMELOCK_LATE_GAP).
 */
function gapBlocks(sequence: SequenceProbe | null, lock: TimelockProbe | null): TailBlock['blocks'] {
  if (lock === null) return sequence ? [{ ...sequence.second, gap: SEQUENCE_GAP }] : [];
  const late = sequence ? [sequence.second, lock.late] : [lock.late];
  return [
    { ...lock.queue, gap: TIMELOCK_QUEUE_GAP, overrides: lock.overrides },
    { ...lock.early, gap: TIMELOCK_EARLY_GAP },
    { labels: late.flatMap((block) => block.labels), calls: late.flatMap((block) => block.calls), gap: TIMELOCK_LATE_GAP },
  ];
}

/** Every request is issued before any is awaited: one HTTP request with a batching client. Rejects when the node fails. */
export async function runSecondRound(client: PublicClient, plan: CheckPlan, token: Address): Promise<SecondRound> {
  const { owner, implementation, beacon } = plan.reads;
  try {
    const [legs, trace, ownerCode, implementationCode, beaconImplementation] = await Promise.all([
      runBundle(client, plan.bundle),
      runTrace(client, plan.trace),
      owner ? client.getCode({ address: owner }).then((code) => code ?? '0x') : null,
      implementation ? client.getCode({ address: implementation }).then((code) => code ?? '0x') : null,
      beacon ? orOnRevert(client.readContract({ address: beacon, abi: ownerFactsAbi, functionName: 'implementation' }), null, `beacon read of ${beacon}`) : null,
    ]);
    const answer = (label: string) => (legs?.get(label)?.ok ? (legs.get(label)!.data as Hex) : null);
    const timelock = { queue: legs?.get(TIMELOCK_LABELS.queue), early: legs?.get(TIMELOCK_LABELS.early), late: legs?.get(TIMELOCK_LABELS.late) };
    const ownerAnswers = owner && legs ? { threshold: answer('owner.threshold'), owners: answer('owner.owners'), timelock } : null;
    return { legs, trace, facts: { ownerCode, ownerAnswers, implementationCode, beaconImplementation } };
  } catch (error) {
    throw error instanceof ChainUnavailableError ? error : new ChainUnavailableError(`simulation of ${token}`, error);
  }
}

/** The callTracer's tree of one transfer; null when the node has no debug_traceCall. */
async function runTrace(client: PublicClient, params: unknown[]): Promise<Record<string, unknown> | null> {
  try {
    return (await client.request({ method: 'debug_traceCall', params } as never)) as Record<string, unknown>;
  } catch (error) {
    if (unsupported(error)) return null;
    throw error;
  }
}
