// Owner powers by behaviour: which owner calls count as a power over holders, and how each is judged.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { numberToHex, toFunctionSelector, type Address } from 'viem';
import type { ContractFacts } from '../../../../src/facts/safety/contract-facts.js';
import { buildPowerProbe, readPowers, type OwnerPower, type PowerCall } from '../../../../src/facts/safety/owner-powers.js';
import type { SellSimulation } from '../../../../src/facts/safety/sell-simulation.js';
import { classify } from '../../../../src/facts/safety/severity.js';

const TOKEN: Address = '0x1000000000000000000000000000000000000001';
const OWNER: Address = '0x2000000000000000000000000000000000000002';
const selector = (signature: string) => toFunctionSelector(`function ${signature}`);
const word = (value: bigint): PowerCall => ({ ok: true, data: numberToHex(value, { size: 32 }) });
const ok: PowerCall = { ok: true, data: '0x' };
const reverted: PowerCall = { ok: false, data: '0x' };

function probe(signatures: string[]) {
  const built = buildPowerProbe({
    token: TOKEN, owner: OWNER, selectors: new Set(signatures.map(selector)), slot: { slot: 0, layout: 'solidity' },
    amount: 1000n,
  });
  assert.ok(built);
  return built;
}

describe('owner powers by behaviour', () => {
  it('skips the functions every token has, and probes the rest twice (holder and 1; zeros)', () => {
    assert.equal(buildPowerProbe({ ...{ token: TOKEN, owner: OWNER, slot: { slot: 0, layout: 'solidity' }, amount: 1n }, selectors: new Set([selector('transfer(address,uint256)'), selector('renounceOwnership()')]) }), null);
    const built = probe(['transfer(address,uint256)', 'syncAccount(address,uint256)']);
    assert.deepEqual(built.probes.map((p) => p.selector), [selector('syncAccount(address,uint256)'), selector('syncAccount(address,uint256)')]);
    assert.equal(built.labels.length, 8);
  });

  it('reads a balance taken, a balance given and a transfer stopped; blames nothing when the holder could not send before', () => {
    const built = probe(['reward(address,uint256)', 'setRoute(address,bool)', 'syncAccount(address,uint256)']);
    const sorted = [...new Set(built.probes.map((p) => p.selector))];
    const effects: Record<string, PowerCall[]> = {
      [selector('syncAccount(address,uint256)')]: [ok, ok, word(1n), ok],
      [selector('reward(address,uint256)')]: [ok, ok, word(1000n), ok],
      [selector('setRoute(address,bool)')]: [ok, ok, word(999n), reverted],
    };
    const calls = built.probes.flatMap(({ selector: s }, i) => (i % 2 === 0 ? effects[s] : [reverted, ok, word(0n), reverted]));
    assert.deepEqual(readPowers(built, calls).sort((a, b) => sorted.indexOf(a.selector) - sorted.indexOf(b.selector)), sorted.map((s) => ({
      selector: s, signature: null, effect: s === selector('syncAccount(address,uint256)') ? 'took' : s === selector('reward(address,uint256)') ? 'gave' : 'blocked',
    })));
  });

  it('calls a power to take tokens danger, to mint or block a warning, and excuses mint under a multisig', () => {
    const facts = (kind: 'eoa' | 'multisig'): ContractFacts => ({
      address: TOKEN, hasCode: true, capabilities: new Map(), selfdestruct: false, delegatecall: false, proxy: null, decimals: 18,
      owner: { kind, address: OWNER, threshold: kind === 'multisig' ? 2 : null, signers: kind === 'multisig' ? 3 : null },
    });
    const sell = (owner_powers: OwnerPower[]) => ({ simulated: true, not_a_token: false, sells: [], sell_fresh_ok: true, sell_held_ok: true, buy_tax_bps: 0, sell_tax_bps: 0, owner_powers }) as unknown as SellSimulation;
    const seize = classify({ facts: facts('eoa'), sell: sell([{ selector: '0x12345678', signature: null, effect: 'took' }]), listed: false });
    assert.deepEqual(seize, { severity: 'danger', is_honeypot: false, risk_factors: [
      `OWNER_CAN_SEIZE: called by the owner ${OWNER} (a single key), the unlisted function 0x12345678 took tokens from a holder it named`,
    ] });
    const mint: OwnerPower = { selector: selector('reward(address,uint256)'), signature: null, effect: 'gave' };
    assert.equal(classify({ facts: facts('eoa'), sell: sell([mint]), listed: false }).severity, 'warn');
    assert.deepEqual(classify({ facts: facts('multisig'), sell: sell([mint]), listed: false }).risk_factors, [
      `ADVISORY: OWNER_CAN_MINT: called by the 2-of-3 multisig owner ${OWNER}, the unlisted function ${selector('reward(address,uint256)')} gave a holder it named new tokens (owner is a 2-of-3 multisig)`,
    ]);
    // A listed mint that mints is the MINT_CAPABILITY finding already.
    const named: OwnerPower = { selector: selector('mint(address,uint256)'), signature: 'mint(address,uint256)', effect: 'gave' };
    assert.deepEqual(classify({ facts: facts('eoa'), sell: sell([named]), listed: false }).risk_factors, []);
    const block = classify({ facts: facts('eoa'), sell: sell([{ selector: '0x12345678', signature: null, effect: 'blocked' }]), listed: true });
    assert.deepEqual([block.severity, block.risk_factors[0].startsWith('ADVISORY: OWNER_CAN_BLOCK')], ['safe', true]);
  });
});
