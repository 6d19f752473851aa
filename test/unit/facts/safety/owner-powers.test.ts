// Owner powers by behaviour: which owner calls count as a power over holders, and how each is judged.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { numberToHex, toFunctionSelector, type Address } from 'viem';
import type { ContractFacts } from '../../../../src/facts/safety/contract-facts.js';
import { buildPowerProbe, CONTROL, readPowers, uncheckedSelectors, type OwnerPower, type PowerCall, type PowerCalls, type PowerProbe } from '../../../../src/facts/safety/owner-powers.js';
import type { SellSimulation } from '../../../../src/facts/safety/sell-simulation.js';
import { classify } from '../../../../src/facts/safety/severity.js';

const TOKEN: Address = '0x1000000000000000000000000000000000000001';
const OWNER: Address = '0x2000000000000000000000000000000000000002';
const selector = (signature: string) => toFunctionSelector(`function ${signature}`);
const word = (value: bigint): PowerCall => ({ ok: true, data: numberToHex(value, { size: 32 }) });
const ok: PowerCall = { ok: true, data: '0x' };
const reverted: PowerCall = { ok: false, data: '0x' };

const SUPPLY = 10n ** 24n;
const OWNER_HELD = 10n ** 23n;
type Steps = Record<'before' | 'held' | 'supply' | 'ownerHeld' | 'owner' | 'balance' | 'supplyAfter' | 'ownerAfter' | 'after', PowerCall>;

/** Every probe's calls (the control's too): a holder that sent one unit and that nothing happened to, changed by `change(selector, variant)`. */
function outcomes(built: PowerProbe, change: (selector: string, variant: number) => Partial<Steps>): PowerCalls {
  const quiet: Steps = {
    before: ok, held: word(999n), supply: word(SUPPLY), ownerHeld: word(OWNER_HELD), owner: ok,
    balance: word(999n), supplyAfter: word(SUPPLY), ownerAfter: word(OWNER_HELD), after: ok,
  };
  return new Map(built.probes.flatMap(({ selector: s }, i) => {
    const variant = i === built.probes.length - 1 ? 0 : i % 2;
    const steps = { ...quiet, ...change(s, variant) };
    return Object.entries(steps).map(([step, call]) => [`power.${i}.${step}`, call] as const);
  }));
}

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
    assert.deepEqual(built.probes.map((p) => p.selector), [selector('syncAccount(address,uint256)'), selector('syncAccount(address,uint256)'), CONTROL]);
    // One block: the control's three calls, then two variants of nine calls each.
    assert.deepEqual(built.blocks.map((block) => block.labels.length), [21]);
  });

  it('reads a balance taken, a balance minted and a transfer stopped; blames nothing when the holder could not send before', () => {
    const built = probe(['reward(address,uint256)', 'setRoute(address,bool)', 'syncAccount(address,uint256)']);
    const sorted = [...new Set(built.probes.map((p) => p.selector))].filter((s) => s !== CONTROL);
    const effects: Record<string, Partial<Steps>> = {
      [selector('syncAccount(address,uint256)')]: { balance: word(1n) },
      [selector('reward(address,uint256)')]: { balance: word(1999n), supplyAfter: word(SUPPLY + 1000n) },
      [selector('setRoute(address,bool)')]: { after: reverted },
    };
    const calls = outcomes(built, (s, variant) => (variant === 0 ? (effects[s] ?? {}) : { before: reverted }));
    assert.deepEqual(readPowers(built, calls).sort((a, b) => sorted.indexOf(a.selector) - sorted.indexOf(b.selector)), sorted.map((s) => ({
      selector: s, signature: null, effect: s === selector('syncAccount(address,uint256)') ? 'took' : s === selector('reward(address,uint256)') ? 'gave' : 'blocked',
    })));
  });

  it('finds no power in an owner that hands out its own tokens, a send that returned false, or a second send no holder could make', () => {
    const built = probe(['distribute(address,uint256)', 'setMemo(uint256)']);
    const gift = selector('distribute(address,uint256)');
    const outcome = outcomes(built, (s, variant) => (s === gift && variant === 0 ? { balance: word(1999n), ownerAfter: word(OWNER_HELD - 1000n) } : {}));
    assert.deepEqual(readPowers(built, outcome), []);
    // transfer returned false: the holder's balance did not move, so the owner's call is not judged.
    const falseReturn = outcomes(built, (s) => (s === gift ? { held: word(1000n), balance: word(2000n) } : {}));
    assert.deepEqual(readPowers(built, falseReturn), []);
    assert.deepEqual(uncheckedSelectors(built, falseReturn, []), [gift]);
    // Every holder's second send fails, the control's too: no owner call is blamed for it.
    assert.deepEqual(readPowers(built, outcomes(built, () => ({ after: reverted }))), []);
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

  it('lists each factor once, naming every function that showed it', () => {
    const facts: ContractFacts = {
      address: TOKEN, hasCode: true, capabilities: new Map(), selfdestruct: false, delegatecall: false, proxy: null, decimals: 18,
      owner: { kind: 'eoa', address: OWNER, threshold: null, signers: null },
    };
    const blocked = ['0x11111111', '0x22222222', '0x33333333'].map((s): OwnerPower => ({ selector: s, signature: null, effect: 'blocked' }));
    const sell = { simulated: true, not_a_token: false, sells: [], sell_fresh_ok: true, sell_held_ok: true, buy_tax_bps: 0, sell_tax_bps: 0, owner_powers: blocked } as unknown as SellSimulation;
    const outside = ['0x4000000000000000000000000000000000000004', '0x5000000000000000000000000000000000000005'].map((address) => ({ address: address as Address, owner: null }));
    assert.deepEqual(classify({ facts, sell, listed: false, outside, unchecked: ['one thing', 'another'] }).risk_factors, [
      `OWNER_CAN_BLOCK: called by the owner ${OWNER} (a single key), the unlisted function 0x11111111, the unlisted function 0x22222222 and the unlisted function 0x33333333 each stopped a holder from transferring`,
      `OUTSIDE_CALL_UNCHECKED: a holder's transfer calls ${outside[0].address}, a contract the registry does not list that answers no owner(); whether anyone can switch what it allows could not be checked; a holder's transfer calls ${outside[1].address}, a contract the registry does not list that answers no owner(); whether anyone can switch what it allows could not be checked`,
      'OWNER_POWERS_UNCHECKED: one thing; another',
    ]);
  });
});
