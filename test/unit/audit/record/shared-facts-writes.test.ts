// Which facts lines a group commit writes: a shared document once per scope, before the facts that name it,
// and again after a failed write; and what a facts document names by hash (facts-uses.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AuditRecord } from '../../../../src/audit/record/audit-log.js';
import { FactsDocumentCheck, usesOf } from '../../../../src/audit/record/facts-uses.js';
import type { SealedRecord } from '../../../../src/audit/record/record.js';
import { sha256Hex } from '../../../../src/audit/record/sha256.js';
import { SharedFactsWrites } from '../../../../src/audit/record/shared-facts-writes.js';

const doc = (text: string) => ({ text, hash: sha256Hex(text) });
const ENGINE = doc('{"kind":"engine","version":"1"}');
const CONTEXT = doc(`{"kind":"context","uses":{"engine":"${ENGINE.hash}"}}`);
const own = (n: number) => doc(`{"format":2,"input":{"n":${n}},"uses":{"context":"${CONTEXT.hash}"}}`);
const sealed = (seq: number): SealedRecord => ({ record: { seq } as AuditRecord, line: Buffer.alloc(0), facts: { ...own(seq), shared: [ENGINE, CONTEXT] } });
const kinds = (lines: Array<{ seq: number; hash: string }>) => lines.map(({ seq, hash }) => `${seq}:${hash === ENGINE.hash ? 'engine' : hash === CONTEXT.hash ? 'context' : 'own'}`);

describe('SharedFactsWrites', () => {
  it('writes a shared document once a scope, before the first facts that name it, and again in the next scope', () => {
    const writes = new SharedFactsWrites((seq) => Math.floor(seq / 256));
    assert.deepEqual(kinds(writes.lines([sealed(254), sealed(255)])), ['254:engine', '254:context', '254:own', '255:own']);
    assert.deepEqual(kinds(writes.lines([sealed(256), sealed(257)])), ['256:engine', '256:context', '256:own', '257:own']);
    assert.deepEqual(kinds(writes.lines([sealed(258)])), ['258:own']);
  });

  it('writes a record\'s own facts once a scope too: a record judged on the same facts names the line kept', () => {
    const writes = new SharedFactsWrites((seq) => Math.floor(seq / 256));
    const same = (seq: number): SealedRecord => ({ ...sealed(seq), facts: { ...own(1), shared: [ENGINE, CONTEXT] } });
    assert.deepEqual(kinds(writes.lines([same(250), same(251), sealed(252)])), ['250:engine', '250:context', '250:own', '252:own']);
    assert.deepEqual(kinds(writes.lines([same(253)])), []);
    assert.deepEqual(kinds(writes.lines([same(256)])), ['256:engine', '256:context', '256:own']);
  });

  it('writes them again after a failed write, whose lines may be cut', () => {
    const writes = new SharedFactsWrites(() => 0);
    writes.lines([sealed(1)]);
    writes.forget();
    assert.deepEqual(kinds(writes.lines([sealed(2)])), ['2:engine', '2:context', '2:own']);
  });
});

describe('usesOf and FactsDocumentCheck', () => {
  it('read what a document names, and hold every named document to its name', () => {
    assert.deepEqual(usesOf(own(1).text), [CONTEXT.hash]);
    assert.deepEqual(usesOf(CONTEXT.text), [ENGINE.hash]);
    assert.deepEqual(usesOf(ENGINE.text), []);
    const shared = new Map([[ENGINE.hash, ENGINE.text], [CONTEXT.hash, CONTEXT.text]]);
    const check = new FactsDocumentCheck();
    assert.equal(check.problem(own(1).hash, own(1).text, shared), null);
    assert.equal(check.problem(own(1).hash, own(1).text, new Map([...shared, [ENGINE.hash, ENGINE.text.replace('1', '2')]])), 'facts_mismatch');
    assert.equal(check.problem(own(1).hash, own(1).text, new Map([[CONTEXT.hash, CONTEXT.text]])), 'facts_missing');
    assert.equal(check.problem(own(1).hash, undefined, shared), 'facts_missing');
  });
});
