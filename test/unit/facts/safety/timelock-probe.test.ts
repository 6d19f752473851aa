// Timelocks by behaviour: the grants the probe is given, and an owner read as a timelock only when a call queued through it waited past two days and then ran.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeFunctionData, encodeFunctionResult, keccak256, pad, toHex, type Address, type Hex } from 'viem';
import { contractFacts, type SecondRoundFacts } from '../../../../src/facts/safety/contract-facts.js';
import type { FirstRound } from '../../../../src/facts/safety/first-round.js';
import type { LegResult } from '../../../../src/facts/safety/simulation-bundle.js';
import { buildTimelockProbe, lockGrants, readTimelock, roleMemberSlot, timelockProbeAbi, TIMELOCK_EARLY_GAP, TIMELOCK_LATE_GAP, TIMELOCK_QUEUE_GAP, type TimelockLegs } from '../../../../src/facts/safety/timelock-probe.js';
import { SEQUENCE_GAP } from '../../../../src/facts/safety/owner-sequences.js';

const PROBE: Address = '0x00000000000000000000000000000000000050fe';
const OWNER: Address = '0x2000000000000000000000000000000000000002';
const TWO_DAYS = 2n * 86_400n;

/** queueAtLock's answer: family 1 (OpenZeppelin) or 2 (Compound), the claimed delay, queued, ran at once. */
const queued = (family: number, delay: bigint, ok: boolean, atOnce: boolean): LegResult => ({
  ok: true, data: encodeFunctionResult({ abi: timelockProbeAbi, functionName: 'queueAtLock', result: [family, delay, ok, atOnce] }),
});
const ran = (value: boolean): LegResult => ({ ok: true, data: encodeFunctionResult({ abi: timelockProbeAbi, functionName: 'runAtLock', result: value }) });
const reverted: LegResult = { ok: false, data: null };
/** A real two-day lock: refused at once and before two days, ran after. */
const real = (family: number): TimelockLegs => ({ queue: queued(family, TWO_DAYS, true, false), early: ran(false), late: ran(true) });

describe('the grants the timelock probe is given', () => {
  it("derives AccessControl's role member key as solc lays out _roles[role].hasRole[account] at slot 0", () => {
    // keccak256(abi.encode(account, keccak256(abi.encode(role, 0)))), with the role PROPOSER_ROLE.
    const proposer = keccak256(toHex('PROPOSER_ROLE'));
    assert.equal(proposer, '0xb09aa5aeb3702cfd50b6b62bc4532604938f21248a27a1d5ca736082b6819cc1');
    assert.equal(roleMemberSlot(proposer, PROBE), keccak256(`0x${pad(PROBE).slice(2)}${keccak256(`0x${proposer.slice(2)}${pad('0x00').slice(2)}`).slice(2)}` as Hex));
  });

  it('writes both roles to 1 and slot 0 (Compound\'s admin) to the probe, and nothing else', () => {
    const grants = lockGrants(PROBE);
    const roles = ['PROPOSER_ROLE', 'EXECUTOR_ROLE'].map((role) => roleMemberSlot(keccak256(toHex(role)), PROBE));
    assert.deepEqual(grants, { [roles[0]]: pad('0x01'), [roles[1]]: pad('0x01'), [pad('0x00')]: pad(PROBE) });
  });

  it('runs late in the two-step probe\'s block: the three gaps add up to SEQUENCE_GAP, and the early run comes a second before two days', () => {
    assert.equal(TIMELOCK_QUEUE_GAP.seconds + TIMELOCK_EARLY_GAP.seconds + TIMELOCK_LATE_GAP.seconds, SEQUENCE_GAP.seconds);
    assert.equal(TIMELOCK_QUEUE_GAP.blocks + TIMELOCK_EARLY_GAP.blocks + TIMELOCK_LATE_GAP.blocks, SEQUENCE_GAP.blocks);
    assert.equal(TIMELOCK_EARLY_GAP.seconds, TWO_DAYS - 1n);
    const probe = buildTimelockProbe({ owner: OWNER, origin: PROBE, probeCode: '0x00', probe: PROBE });
    assert.deepEqual(probe.overrides[OWNER], { stateDiff: lockGrants(PROBE) });
    // The short wait the probe offers the lock is the early run's gap, so a lock that accepts it runs the call there.
    assert.deepEqual(decodeFunctionData({ abi: timelockProbeAbi, data: probe.queue.calls[0].data }).args, [OWNER, TWO_DAYS - 1n]);
  });
});

describe('reading the behaviour', () => {
  it('shows a timelock of either family whose call was refused at once and a second before two days, and ran days later', () => {
    assert.deepEqual(readTimelock(real(1)), { claim: { reader: 'getMinDelay()', seconds: 172_800 }, shown: true, refuted: null });
    assert.deepEqual(readTimelock(real(2)), { claim: { reader: 'delay()', seconds: 172_800 }, shown: true, refuted: null });
  });

  it('claims nothing for an owner that answers neither getMinDelay() nor delay(), or when the probe did not run', () => {
    const none = { claim: null, shown: false, refuted: null };
    assert.deepEqual(readTimelock({ ...real(1), queue: queued(0, 0n, false, false) }), none);
    assert.deepEqual(readTimelock({ queue: reverted }), none);
    assert.deepEqual(readTimelock({ ...real(1), queue: { ok: true, data: '0x' } }), none, 'an address without the probe\'s code answers nothing');
    assert.deepEqual(readTimelock(null), none);
  });

  const refuted = (legs: TimelockLegs) => readTimelock(legs).refuted;
  it('refutes a claimed delay, saying which leg failed', () => {
    const claim = 'it answers getMinDelay() with 2 days, but';
    assert.equal(refuted({ ...real(1), queue: queued(1, TWO_DAYS, false, false) }), `${claim} no call could be queued through it as its proposer or admin, so no delay was shown`);
    assert.equal(refuted({ ...real(1), queue: queued(1, TWO_DAYS, true, true) }), `${claim} ran a call queued through it at once`);
    assert.equal(refuted({ ...real(1), early: ran(true) }), `${claim} ran a call queued through it before 2 days had passed`);
    assert.equal(refuted({ ...real(1), early: reverted }), `${claim} the run of a call queued through it before 2 days had passed could not be simulated, so no delay was shown`);
    assert.equal(refuted({ ...real(1), late: ran(false) }), `${claim} a call queued through it had not run more than 8 days later either, so its queue was not shown to work`);
    assert.equal(refuted({ ...real(2), queue: queued(2, 86_400n, true, false), early: ran(true) }), 'it answers delay() with 1 day, but ran a call queued through it before 2 days had passed');
  });
});

describe('the owner kind', () => {
  const first = { token: '0x1000000000000000000000000000000000000001', code: '0x6000', proxySlots: [pad('0x00'), pad('0x00'), pad('0x00')], owner: OWNER, decimals: 18, cap: null, totalSupply: null } as unknown as FirstRound;
  const second = (timelock: TimelockLegs, threshold: Hex | null = null): SecondRoundFacts => ({ ownerCode: '0x6001', ownerAnswers: { threshold, owners: null, timelock }, implementationCode: null, beaconImplementation: null });

  it('is timelock, with the claimed delay, only when the behaviour held', () => {
    assert.deepEqual(contractFacts(first, second(real(2))).owner, { kind: 'timelock', address: OWNER, threshold: null, signers: null, delaySeconds: 172_800 });
  });

  it('is contract, saying why, when an owner claims a delay the behaviour did not show', () => {
    const owner = contractFacts(first, second({ ...real(1), queue: queued(1, TWO_DAYS, true, true) })).owner;
    assert.deepEqual(owner, { kind: 'contract', address: OWNER, threshold: null, signers: null, delaySeconds: null, notTimelock: 'it answers getMinDelay() with 2 days, but ran a call queued through it at once' });
  });

  it('is a multisig when a Safe answers a threshold of two, whatever the probe saw', () => {
    assert.equal(contractFacts(first, second({ queue: reverted }, pad('0x02'))).owner.kind, 'multisig');
  });
});
