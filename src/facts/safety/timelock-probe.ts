// Whether a token's owner contract is a timelock by behaviour: a call queued through it is refused at once and just before two days, and runs days later.
import { decodeFunctionResult, encodeAbiParameters, encodeFunctionData, keccak256, numberToHex, pad, parseAbi, toHex, type Address, type Hex } from 'viem';
import type { LabelledCalls } from './owner-powers.js';
import { SEQUENCE_GAP } from './owner-sequences.js';
import type { LegResult, Overrides } from './simulation-bundle.js';
import { durationWords } from './simulation-outcome.js';

/** A timelock owner of at least this delay announces every mint ahead (the methodology states it); the behaviour must show it. */
export const TIMELOCK_MIN_DELAY_SECONDS = 2 * 86_400;

/**
 * The probe's blocks, each after the one before (ARCHITECTURE.md "Token safety"): queueing one block
 * after the first tail block; the early run one second before TIMELOCK_MIN_DELAY_SECONDS after
 * queueing (a lock that runs the call there waits less than two days); the late run in the block of
 * the owner's two-step probe, SEQUENCE_GAP after the first tail block (past a week of delay, inside
 * Compound's 14-day grace), so the probe adds two blocks and no time to the simulation.
 */
export const TIMELOCK_QUEUE_GAP = { seconds: 12n, blocks: 1n } as const;
export const TIMELOCK_EARLY_GAP = { seconds: BigInt(TIMELOCK_MIN_DELAY_SECONDS - 1), blocks: 14_399n } as const;
export const TIMELOCK_LATE_GAP = {
  seconds: SEQUENCE_GAP.seconds - TIMELOCK_QUEUE_GAP.seconds - TIMELOCK_EARLY_GAP.seconds,
  blocks: SEQUENCE_GAP.blocks - TIMELOCK_QUEUE_GAP.blocks - TIMELOCK_EARLY_GAP.blocks,
} as const;
/** How long after queueing the late run comes. */
const LATE_SECONDS = Number(TIMELOCK_EARLY_GAP.seconds + TIMELOCK_LATE_GAP.seconds);

/** TimelockProbe (contracts/safety/), part of SafetyProbe's code. */
export const timelockProbeAbi = parseAbi([
  'function queueAtLock(address lock, uint256 shortWait) returns (uint8 family, uint256 claimedDelay, bool queued, bool ranAtOnce)',
  'function runAtLock(address lock) returns (bool ran)',
]);

/** The claimed delay's reader, by the family TimelockProbe returns (1: OpenZeppelin, 2: Compound). */
const READERS: Readonly<Record<number, string>> = { 1: 'getMinDelay()', 2: 'delay()' };

/** OpenZeppelin TimelockController's proposer and executor roles: keccak256 of their names. */
const OZ_ROLES: readonly Hex[] = ['PROPOSER_ROLE', 'EXECUTOR_ROLE'].map((name) => keccak256(toHex(name)));

/**
 * Storage key of AccessControl's `_roles[role].hasRole[account]`: `_roles` is the first variable
 * (slot 0) of OpenZeppelin 4 and 5's TimelockController, and `hasRole` the first field of its struct.
 */
export function roleMemberSlot(role: Hex, account: Address): Hex {
  const roleData = keccak256(encodeAbiParameters([{ type: 'bytes32' }, { type: 'uint256' }], [role, 0n]));
  return keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'bytes32' }], [account, roleData]));
}

/**
 * What lets `probe` queue and run through the owner, written by state override: both roles of an
 * OpenZeppelin TimelockController, and slot 0, a Compound Timelock's `admin` (where
 * TimelockController keeps nothing: a mapping's own slot stays empty). A lock laid out otherwise
 * refuses the probe and is not shown to be a timelock.
 */
export function lockGrants(probe: Address): Record<Hex, Hex> {
  const member = pad('0x01');
  return { ...Object.fromEntries(OZ_ROLES.map((role) => [roleMemberSlot(role, probe), member])), [pad('0x00')]: pad(probe) };
}

export interface TimelockProbe {
  /** Where the probe's code runs: a throwaway address, the one the lock is told to trust. */
  probe: Address;
  /** The probe's code, the lock's grants and the sender's ether, applied at the queueing block and not before, so the owner's other reads see it untouched. */
  overrides: Overrides;
  /** Its own block: read the claimed delay, queue at the shortest wait the lock accepts (none, TIMELOCK_EARLY_GAP, the claimed delay), try to run at once. */
  queue: LabelledCalls;
  /** TIMELOCK_EARLY_GAP after the queueing block: try to run. */
  early: LabelledCalls;
  /** In the block of the owner's two-step probe (SEQUENCE_GAP after the first tail block): try to run. */
  late: LabelledCalls;
}

export const TIMELOCK_LABELS = { queue: 'timelock.queue', early: 'timelock.early', late: 'timelock.late' } as const;

/** `origin`: the sender, given ether for gas; the probe itself needs none. */
export function buildTimelockProbe(input: { owner: Address; origin: Address; probeCode: Hex; probe: Address }): TimelockProbe {
  const { owner, origin, probe } = input;
  const call = (data: Hex) => ({ from: origin, to: probe, data });
  const run = call(encodeFunctionData({ abi: timelockProbeAbi, functionName: 'runAtLock', args: [owner] }));
  return {
    probe,
    overrides: { [probe]: { code: input.probeCode }, [owner]: { stateDiff: lockGrants(probe) }, [origin]: { balance: numberToHex(10n ** 30n) } },
    // The short wait is the early run's gap: a lock that accepts it runs the call there.
    queue: { labels: [TIMELOCK_LABELS.queue], calls: [call(encodeFunctionData({ abi: timelockProbeAbi, functionName: 'queueAtLock', args: [owner, TIMELOCK_EARLY_GAP.seconds] }))] },
    early: { labels: [TIMELOCK_LABELS.early], calls: [run] },
    late: { labels: [TIMELOCK_LABELS.late], calls: [run] },
  };
}

/** The three legs' results, by TIMELOCK_LABELS' keys; a missing leg did not run. */
export type TimelockLegs = Partial<Record<keyof typeof TIMELOCK_LABELS, LegResult>>;

export interface TimelockBehaviour {
  /** The delay the owner claims and the function that answered it; null when it answers neither getMinDelay() nor delay(). */
  claim: { reader: string; seconds: number } | null;
  /** The call was refused at once and TIMELOCK_MIN_DELAY_SECONDS - 1 s after queueing, and ran in the late block. */
  shown: boolean;
  /** Why an owner that claims a delay is no timelock, in a risk factor's words; null when shown or nothing is claimed. */
  refuted: string | null;
}

/**
 * The behaviour, read from the legs (pure). Shown only when all three held; then the claimed delay
 * is at least TIMELOCK_MIN_DELAY_SECONDS in deed, since the call waited past it.
 */
export function readTimelock(legs: TimelockLegs | null): TimelockBehaviour {
  const queue = legs?.queue;
  const none: TimelockBehaviour = { claim: null, shown: false, refuted: null };
  // Four words from the probe's code; anything shorter means the probe did not run there.
  if (!queue?.ok || queue.data.length !== 2 + 4 * 64) return none;
  const [family, delay, queued, ranAtOnce] = decodeFunctionResult({ abi: timelockProbeAbi, functionName: 'queueAtLock', data: queue.data });
  const reader = READERS[family];
  if (reader === undefined) return none;
  const claim = { reader, seconds: Number(delay) };
  const refuted = (words: string): TimelockBehaviour => ({ claim, shown: false, refuted: `it answers ${reader} with ${durationWords(claim.seconds)}, but ${words}` });
  const threshold = durationWords(TIMELOCK_MIN_DELAY_SECONDS);
  if (!queued) return refuted('no call could be queued through it as its proposer or admin, so no delay was shown');
  if (ranAtOnce) return refuted('ran a call queued through it at once');
  const early = ran(legs?.early);
  if (early === true) return refuted(`ran a call queued through it before ${threshold} had passed`);
  if (early === null) return refuted(`the run of a call queued through it before ${threshold} had passed could not be simulated, so no delay was shown`);
  const later = `more than ${durationWords(86_400 * Math.floor(LATE_SECONDS / 86_400))} later`;
  if (ran(legs?.late) !== true) return refuted(`a call queued through it had not run ${later} either, so its queue was not shown to work`);
  return { claim, shown: true, refuted: null };
}

/** runAtLock's answer; null when the leg did not run, reverted or answered no word. */
function ran(leg: LegResult | undefined): boolean | null {
  return leg?.ok && leg.data.length === 66 ? BigInt(leg.data) !== 0n : null;
}
