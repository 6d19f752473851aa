// Admins beside owner(): which addresses are candidates, which of them the code lets through where a stranger is refused, and how each is judged.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { numberToHex, pad, toFunctionSelector, type Address, type Hex } from 'viem';
import { adminCandidates, MAX_ADMIN_CANDIDATES } from '../../../../src/facts/safety/admin-candidates.js';
import { readAdmins } from '../../../../src/facts/safety/admin-powers.js';
import { buildPowerProbe, type PowerCall } from '../../../../src/facts/safety/owner-powers.js';

const TOKEN: Address = '0x1000000000000000000000000000000000000001';
const OWNER: Address = '0x2000000000000000000000000000000000000002';
const KEEPER: Address = '0x3000000000000000000000000000000000000003';
const POOL: Address = '0x4000000000000000000000000000000000000004';
const word = (value: bigint): PowerCall => ({ ok: true, data: numberToHex(value, { size: 32 }) });
const ok: PowerCall = { ok: true, data: '0x' };
const refused: PowerCall = { ok: false, data: '0x' };

describe('admin candidates', () => {
  it('takes addresses alone in a slot, constants and role holders; never the token, owner(), a registry contract, a short string or a count', () => {
    const shortString = '0x4861205365697a650000000000000000000000000000000000000000000000014' as Hex;
    const slots: Hex[] = [pad(OWNER), numberToHex(10n ** 24n, { size: 32 }), shortString.slice(0, 66) as Hex, pad(KEEPER), pad(TOKEN)];
    const found = adminCandidates({ token: TOKEN, owner: OWNER, slots, constants: new Set([POOL, KEEPER]), roleHolders: [], excluded: new Set([POOL.toLowerCase()]) });
    assert.deepEqual(found, [{ address: KEEPER, source: 'held in storage slot 3' }]);
  });

  it('puts role holders first and keeps at most MAX_ADMIN_CANDIDATES', () => {
    const many = Array.from({ length: 8 }, (_, i) => `0x${(i + 5).toString(16).padStart(2, '0')}00000000000000000000000000000000000005` as Address);
    const found = adminCandidates({ token: TOKEN, owner: null, slots: many.map((a) => pad(a)), constants: new Set(), roleHolders: [KEEPER], excluded: new Set() });
    assert.equal(found.length, MAX_ADMIN_CANDIDATES);
    assert.deepEqual(found[0], { address: KEEPER, source: 'granted a role (RoleGranted)' });
  });
});

describe('admins by behaviour', () => {
  const setRoute = toFunctionSelector('function setRoute(address,bool)');
  const poke = toFunctionSelector('function poke()');
  const probe = buildPowerProbe({ token: TOKEN, owner: null, admins: [KEEPER], selectors: new Set([setRoute, poke]), slot: { slot: 0, layout: 'solidity' }, amount: 1000n })!;

  it('makes a stranger call before each candidate call, and probes nobody as a renounced owner', () => {
    assert.ok(probe.probes.slice(0, -1).every((p) => p.caller === KEEPER && p.gated));
    // The control's three calls, then 2 selectors x 2 variants of ten calls each.
    assert.equal(probe.blocks[0].labels.length, 3 + 4 * 10);
    assert.equal(buildPowerProbe({ token: TOKEN, owner: null, selectors: new Set([setRoute]), slot: { slot: 0, layout: 'solidity' }, amount: 1n }), null);
  });

  it('names a function that lets the candidate through and refuses a stranger, with what it did; not one open to anyone', () => {
    const calls = new Map<string, PowerCall>();
    probe.probes.forEach(({ selector }, i) => {
      const steps: Record<string, PowerCall> = {
        before: ok, held: word(999n), supply: word(10n ** 24n), ownerHeld: word(0n), owner: ok, balance: word(999n),
        supplyAfter: word(10n ** 24n), ownerAfter: word(0n), after: selector === setRoute ? refused : ok,
        stranger: selector === setRoute ? refused : ok,
      };
      for (const [step, call] of Object.entries(steps)) calls.set(`power.${i}.${step}`, call);
    });
    assert.deepEqual(readAdmins(probe, calls, [{ address: KEEPER, source: 'held in storage slot 6' }]), [{
      address: KEEPER, source: 'held in storage slot 6', functions: [`the unlisted function ${setRoute}`],
      powers: [{ selector: setRoute, signature: null, effect: 'blocked' }],
    }]);
    // Every call refused to the candidate too: no admin.
    for (const key of [...calls.keys()].filter((k) => k.endsWith('.owner'))) calls.set(key, refused);
    assert.deepEqual(readAdmins(probe, calls, [{ address: KEEPER, source: 'held in storage slot 6' }]), []);
  });
});
