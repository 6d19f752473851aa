// The facts half of verification, pure: a record's kept facts must hash to its facts_hash; a record whose own bytes
// fail is left to the chain walk; problems merge into the walk's report in seq order, naming where the facts are.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { ZERO_HASH, type FactsLine } from '../../../../src/audit/record/audit-log.js';
import { sealRecord } from '../../../../src/audit/record/record.js';
import { sha256Hex } from '../../../../src/audit/record/sha256.js';
import { FactsCheck, factsLineSound, factsProblem } from '../../../../src/audit/verify/facts-check.js';
import { sampleEntry, WALLET_A } from '../../../support/audit-fixtures.js';

const TEXT = '{"format":1,"input":{"amount":5}}';
const facts = (text = TEXT, hash = createHash('sha256').update(TEXT).digest('hex')): FactsLine => ({ seq: 1, hash, text });

/** Record 1 (format 3) as sealed, naming the facts TEXT and its outcome document. */
function sealedRecord() {
  const entry = { ...sampleEntry(WALLET_A, 1), facts: { text: TEXT, hash: facts().hash } };
  return sealRecord(entry, 1, 1_800_000_000_000, ZERO_HASH, ZERO_HASH, sha256Hex);
}

/** Record 1's stored line (without its newline). */
function recordLine(): Buffer {
  const { line } = sealedRecord();
  return line.subarray(0, line.length - 1);
}

/** The outcome document record 1 names, as kept beside its facts. */
const outcome = () => new Map([[sealedRecord().outcome!.hash, sealedRecord().outcome!.text]]);

describe('factsProblem', () => {
  it('finds nothing wrong with facts and an outcome that hash to the hashes the record names, or a record that names none', () => {
    assert.equal(factsProblem(recordLine(), facts(), outcome()), null);
    const { line } = sealRecord(sampleEntry(WALLET_A, 1), 1, 1_800_000_000_000, ZERO_HASH, ZERO_HASH, sha256Hex);
    assert.equal(factsProblem(line.subarray(0, line.length - 1), null), null);
  });

  it('calls a changed outcome document a mismatch and an absent one missing (format 3)', () => {
    const [[hash, text]] = [...outcome()];
    assert.equal(factsProblem(recordLine(), facts(), new Map([[hash, text.replace('"reasons":[', '"reasons":["ALLOW: added",')]])), 'outcome_mismatch');
    assert.equal(factsProblem(recordLine(), facts(), new Map()), 'outcome_missing');
    assert.equal(factsProblem(recordLine(), facts()), 'outcome_missing');
  });

  it('calls edited facts a mismatch and absent ones missing', () => {
    assert.equal(factsProblem(recordLine(), facts(TEXT.replace('5', '6'))), 'facts_mismatch');
    assert.equal(factsProblem(recordLine(), null), 'facts_missing');
    assert.equal(factsProblem(recordLine(), facts(TEXT, 'f'.repeat(64))), 'facts_missing');
  });

  it('leaves a record whose own bytes fail to the chain walk, so it is counted once', () => {
    const damaged = Buffer.from(recordLine());
    damaged[damaged.indexOf('"facts_hash":"') + 14] ^= 1;
    assert.equal(factsProblem(damaged, facts(), outcome()), null);
    assert.equal(factsProblem(damaged, facts()), null);
  });
});

describe('factsLineSound', () => {
  it('holds a facts line to the hash it is listed under', () => {
    assert.equal(factsLineSound(facts()), true);
    assert.equal(factsLineSound(facts(TEXT.replace('5', '6'))), false);
  });
});

describe('FactsCheck', () => {
  it('merges its problems into the chain walk\'s report in seq order and moves the first broken seq', () => {
    const check = new FactsCheck('facts.log');
    check.add(1, recordLine(), facts(TEXT.replace('5', '6')));
    const hash = recordLine().toString('latin1', 0, 64);
    const walked = { total: 3, tampered: 1, healthy: false, firstBrokenSeq: 3, problems: [{ seq: 3, hash: 'h', problem: 'hash_mismatch' as const }] };
    assert.deepEqual(check.merge(walked), {
      total: 3, tampered: 2, healthy: false, firstBrokenSeq: 1,
      problems: [{ seq: 1, hash, problem: 'facts_mismatch', location: 'facts.log' }, { seq: 3, hash: 'h', problem: 'hash_mismatch' }],
    });
    const healthy = { total: 3, tampered: 0, healthy: true, firstBrokenSeq: null, problems: [] };
    assert.deepEqual(new FactsCheck('facts.log').merge(healthy), healthy);
  });
});
