// Control outside the token's own functions: contracts a transfer calls, owner probes that could not run, and a capped mint behind a timelock.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { numberToHex, toFunctionSelector, zeroAddress, type Address } from 'viem';
import { scanBytecode } from '../../../../src/facts/safety/bytecode.js';
import type { ContractFacts, OwnerFacts } from '../../../../src/facts/safety/contract-facts.js';
import { outsideCalls, readableTrace } from '../../../../src/facts/safety/outside-calls.js';
import { buildPowerProbe, uncheckedSelectors, type PowerCall } from '../../../../src/facts/safety/owner-powers.js';
import { classify } from '../../../../src/facts/safety/severity.js';

const TOKEN: Address = '0x1000000000000000000000000000000000000001';
const OWNER: Address = '0x2000000000000000000000000000000000000002';
const GUARD: Address = '0x3000000000000000000000000000000000000003';
const LISTED: Address = '0x4000000000000000000000000000000000000004';
const E18 = 10n ** 18n;

function facts(owner: Partial<OwnerFacts> = {}, extra: Partial<ContractFacts> = {}): ContractFacts {
  return {
    address: TOKEN, hasCode: true, capabilities: new Map(), selfdestruct: false, delegatecall: false, proxy: null, decimals: 18,
    owner: { kind: 'eoa', address: OWNER, threshold: null, signers: null, ...owner }, ...extra,
  };
}

describe('outside calls in a transfer', () => {
  it('keeps the contracts a transfer called but the token, precompiles, delegates, plain sends and registry contracts', () => {
    const trace = {
      to: TOKEN, calls: [
        { type: 'STATICCALL', to: GUARD.toLowerCase(), input: '0x12345678', calls: [{ type: 'STATICCALL', to: '0x0000000000000000000000000000000000000001', input: '0xab' }] },
        { type: 'DELEGATECALL', to: '0x5000000000000000000000000000000000000005', input: '0x12345678' },
        { type: 'CALL', to: OWNER.toLowerCase(), input: '0x' },
        { type: 'CALL', to: LISTED.toLowerCase(), input: '0x70a08231' },
        { type: 'CALL', to: TOKEN.toLowerCase(), input: '0x70a08231' },
        { type: 'STATICCALL', to: GUARD.toLowerCase(), input: '0x12345678' },
      ],
    };
    const owners = new Map<string, Address | null>([[GUARD.toLowerCase(), OWNER]]);
    assert.deepEqual(outsideCalls(trace, TOKEN, new Set([LISTED.toLowerCase()]), owners), [{ address: GUARD, owner: OWNER }]);
  });

  it("warns on a callee the token's owner owns or nobody could vouch for; excuses a renounced one and the registry's own tokens", () => {
    const judged = (owner: Address | null, listed = false) => classify({ facts: facts(), sell: null, listed, outside: [{ address: GUARD, owner }] });
    const owned = judged(OWNER);
    assert.equal(owned.severity, 'warn');
    assert.equal(owned.risk_factors[1], `OUTSIDE_CALL_OWNED: a holder's transfer calls ${GUARD}, a contract the registry does not list whose owner() is the token's owner ${OWNER}; what transfers are allowed can change without the token changing`);
    assert.equal(judged(null).risk_factors[1], `OUTSIDE_CALL_UNCHECKED: a holder's transfer calls ${GUARD}, a contract the registry does not list that answers no owner(); whether anyone can switch what it allows could not be checked`);
    assert.equal(judged(zeroAddress).risk_factors[1], `ADVISORY: OUTSIDE_CALL: a holder's transfer calls ${GUARD}, a contract the registry does not list; its owner() is renounced`);
    assert.ok(judged(OWNER, true).risk_factors[1].startsWith('ADVISORY: OUTSIDE_CALL_OWNED: '));
  });

  it('warns when the node could not trace the transfer at all', () => {
    const untraced = classify({ facts: facts(), sell: null, listed: false, outside: null });
    assert.ok(untraced.risk_factors.includes("OUTSIDE_CALLS_UNCHECKED: a holder's transfer could not be traced to its end (the node has no debug_traceCall, or no balance could be given to the traced holder and its transfer reverted), so the contracts it calls could not be checked"));
  });

  it('finds the address constants a contract pushes: PUSH20 and an immutable PUSH32, not small numbers or masks', () => {
    const push20 = `73${GUARD.slice(2)}`;
    const push32 = `7f${'00'.repeat(12)}${OWNER.slice(2)}`;
    const small = `7f${'00'.repeat(31)}2a`;
    const mask = `73${'ff'.repeat(20)}`;
    assert.deepEqual([...scanBytecode(`0x${push20}${push32}${small}${mask}00`).addresses], [GUARD, OWNER]);
  });
});

describe('a transfer trace that shows nothing', () => {
  it('counts a reverted transfer of an unfunded holder as untraced, and a funded one as traced', () => {
    const reverted = { type: 'CALL', error: 'execution reverted', calls: [] };
    const completed = { type: 'CALL', calls: [] };
    // Unfunded (no proven balance slot): the revert ran no hook, so the calls are unknown.
    assert.equal(readableTrace(reverted, false), null);
    assert.equal(readableTrace(completed, false), completed);
    // Funded: the calls made before a revert are in the trace.
    assert.equal(readableTrace(reverted, true), reverted);
    assert.equal(readableTrace(null, true), null);
  });
});

describe('owner probes that could not run', () => {
  const selector = toFunctionSelector('function setRoute(address,bool)');
  const probe = buildPowerProbe({ token: TOKEN, owner: OWNER, selectors: new Set([selector]), slot: { slot: 0, layout: 'solidity' }, amount: 1000n })!;
  const word = (value: bigint): PowerCall => ({ ok: true, data: numberToHex(value, { size: 32 }) });
  const refused: PowerCall = { ok: false, data: '0x' };

  it('names a function whose holders could not send before the owner called it, unless a power found stops holders', () => {
    const ok: PowerCall = { ok: true, data: '0x' };
    const steps = { before: refused, held: word(1000n), supply: word(10n ** 6n), ownerHeld: word(0n), owner: ok, balance: word(1000n), supplyAfter: word(10n ** 6n), ownerAfter: word(0n), after: refused };
    const calls = new Map(probe.probes.flatMap((_, i) => Object.entries(steps).map(([step, call]) => [`power.${i}.${step}`, call] as const)));
    assert.deepEqual(uncheckedSelectors(probe, calls, []), [selector]);
    assert.deepEqual(uncheckedSelectors(probe, calls, [{ selector: '0x12345678', signature: null, effect: 'blocked' }]), []);
  });

  it('makes every unchecked power a warning with its reason, advisory for a registry token', () => {
    const reason = 'the node does not offer eth_simulateV1, so the owner\'s functions were not called';
    const judged = classify({ facts: facts(), sell: null, listed: false, unchecked: [reason] });
    assert.deepEqual([judged.severity, judged.risk_factors[1]], ['warn', `OWNER_POWERS_UNCHECKED: ${reason}`]);
    assert.equal(classify({ facts: facts(), sell: null, listed: true, unchecked: [reason] }).risk_factors[1], `ADVISORY: OWNER_POWERS_UNCHECKED: ${reason} (a registry issuer control)`);
  });
});

describe('a capped mint behind a timelock', () => {
  const mint = new Map([['mint', ['mint(address,uint256)']]]) as ContractFacts['capabilities'];
  const timelock = (delaySeconds: number, cap: bigint | null) => classify({
    facts: facts({ kind: 'timelock', delaySeconds }, { capabilities: mint, cap, totalSupply: 1_000_000n * E18 }), sell: null, listed: false,
  }).risk_factors.find((factor) => factor.includes('MINT_CAPABILITY'));

  it('is advisory when the delay is two days or more and the cap at most 10% above the supply', () => {
    assert.equal(timelock(2 * 86_400, 1_100_000n * E18), `ADVISORY: MINT_CAPABILITY: mint(address,uint256) let the timelock owner ${OWNER} (minimum delay 2 days) create new supply (capped at 10% above the supply, announced 2 days ahead)`);
  });

  it('warns on a shorter delay, a wider cap, or no cap', () => {
    const warned = `MINT_CAPABILITY: mint(address,uint256) let the timelock owner ${OWNER} (minimum delay 1 day) create new supply`;
    assert.equal(timelock(86_400, 1_050_000n * E18), warned);
    assert.ok(timelock(2 * 86_400, 1_200_000n * E18)!.startsWith('MINT_CAPABILITY: '));
    assert.ok(timelock(2 * 86_400, null)!.startsWith('MINT_CAPABILITY: '));
  });
});
