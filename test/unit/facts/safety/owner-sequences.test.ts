// Owner powers in two steps: a holder named in one owner call and stopped by calls days later, judged as a single call would be, and nothing counted twice.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { numberToHex, toFunctionSelector, type Address } from 'viem';
import type { PowerCall } from '../../../../src/facts/safety/owner-powers.js';
import { buildSequenceProbe, readSequence } from '../../../../src/facts/safety/owner-sequences.js';
import { sequenceFindings } from '../../../../src/facts/safety/sequence-findings.js';

const TOKEN: Address = '0x1000000000000000000000000000000000000001';
const OWNER: Address = '0x2000000000000000000000000000000000000002';
const queue = toFunctionSelector('function queueReview(address)');
const settle = toFunctionSelector('function settleReview(address)');
const probe = buildSequenceProbe({ token: TOKEN, owner: OWNER, selectors: new Set([queue, settle]), slot: { slot: 0, layout: 'solidity' }, amount: 1000n })!;
const ok: PowerCall = { ok: true, data: '0x' };
const refused: PowerCall = { ok: false, data: '0x' };

/** Every call went through; each holder sent twice before step two; `patch` changes some. */
function calls(patch: Record<string, PowerCall>): Map<string, PowerCall> {
  const all = new Map<string, PowerCall>([...probe.first.labels, ...probe.second.labels].map((label) => [label, ok]));
  for (const h of [0, 1]) for (const step of ['held', 'balance']) all.set(`sequence.${h}.${step}`, { ok: true, data: numberToHex(998n, { size: 32 }) });
  for (const [label, call] of Object.entries(patch)) all.set(`sequence.${label}`, call);
  return all;
}

describe('owner powers in two steps', () => {
  it('runs the second step in selector order for one holder and in reverse for the other', () => {
    const order = (h: number) => probe.second.labels.filter((label) => label.startsWith(`sequence.${h}.run.`));
    const sorted = [queue, settle].sort();
    assert.deepEqual(order(0), sorted.map((s) => `sequence.0.run.${probe.selectors.indexOf(s)}`));
    assert.deepEqual(order(1), [...sorted].reverse().map((s) => `sequence.1.run.${probe.selectors.indexOf(s)}`));
  });

  it('reads a holder stopped after the gap, naming the functions that went through', () => {
    const found = readSequence(probe, calls({ '1.after': refused }));
    assert.deepEqual(found, { effect: 'blocked', set: [queue, settle].sort().map((s) => `the unlisted function ${s}`), run: [queue, settle].sort().map((s) => `the unlisted function ${s}`) });
    assert.deepEqual(sequenceFindings(found, `the owner ${OWNER} (a single key)`, false), [{
      level: 'warn',
      text: `OWNER_CAN_BLOCK: called by the owner ${OWNER} (a single key) in two steps, ${found!.set.join(', ')} naming a holder, then more than 8 days later ${found!.run.join(', ')}, stopped that holder from transferring`,
    }]);
  });

  it('counts nothing when step one already stopped the holder, or the control could not send either', () => {
    assert.equal(readSequence(probe, calls({ '0.between': refused, '1.between': refused, '0.after': refused, '1.after': refused })), null);
    assert.equal(readSequence(probe, calls({ '0.after': refused, control: refused })), null);
    assert.equal(readSequence(probe, calls({})), null);
  });
});
