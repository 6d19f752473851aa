// The rules that tell a DATA_DIR's store and audit log apart when they disagree, and what an older DATA_DIR was written with.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { inferSettings, storeProblem, withEpochTokens, type DataDirEpoch } from '../../../src/assembly/data-dir-epoch.js';
import { ALWAYS_USABLE } from '../../../src/store/store-state.js';
import { useTempDirs } from '../../support/temp-dirs.js';

const tempDir = useTempDirs('data-dir-epoch-');
const EPOCH: DataDirEpoch = {
  id: 'e1', created_at: '2026-01-01T00:00:00.000Z', audit_store: 'file', audit_partitions: 1, store: 'lmdb',
  tokens_not_before_ms: null, store_marked: true, previous: null,
};

describe('storeProblem', () => {
  it('accepts a store that carries the epoch at or behind the audit head', () => {
    assert.equal(storeProblem(EPOCH, { id: 'e1', audit_seq: 40 }, 40), null);
    assert.equal(storeProblem(EPOCH, { id: 'e1', audit_seq: 12 }, 40), null);
  });

  it('calls an unmarked store lost only once the epoch has marked one (an adopted DATA_DIR starts unmarked)', () => {
    assert.match(storeProblem(EPOCH, null, 40)!, /the store in DATA_DIR\/store is empty, but it held epoch e1 beside an audit chain now at seq 40/);
    assert.equal(storeProblem({ ...EPOCH, store_marked: false }, null, 40), null);
  });

  it('refuses a store of another epoch, but not the one a new epoch replaced', () => {
    assert.match(storeProblem(EPOCH, { id: 'other', audit_seq: 1 }, 40)!, /belongs to epoch other, not to this DATA_DIR's epoch e1/);
    const replacing = { ...EPOCH, id: 'e2', store_marked: false, previous: { ...EPOCH, id: 'e1', audit_seq: null } };
    assert.equal(storeProblem(replacing, { id: 'e1', audit_seq: 40 }, 0), null);
  });

  it('refuses a log behind what the store saw', () => {
    assert.match(storeProblem(EPOCH, { id: 'e1', audit_seq: 41 }, 40)!, /the store saw the audit chain at seq 41, but the audit log's head is seq 40/);
  });
});

describe('inferSettings', () => {
  it('reads the file chain, Redis head files and the store folder an older DATA_DIR left', async () => {
    assert.deepEqual(await inferSettings(await tempDir()), {});
    const file = await tempDir();
    mkdirSync(join(file, 'audit'));
    writeFileSync(join(file, 'audit', 'audit.log'), 'x\n');
    mkdirSync(join(file, 'store'));
    assert.deepEqual(await inferSettings(file), { store: 'lmdb', audit_store: 'file', audit_partitions: 1 });
    const partitioned = await tempDir();
    for (const p of [0, 1, 2]) writeFileSync(join(partitioned, `redis-chain-head-${p}.json`), '{}');
    assert.deepEqual(await inferSettings(partitioned), { audit_store: 'redis', audit_partitions: 3 });
    const single = await tempDir();
    writeFileSync(join(single, 'redis-chain-head.json'), '{}');
    assert.deepEqual(await inferSettings(single), { audit_store: 'redis', audit_partitions: 1 });
  });
});

describe('withEpochTokens', () => {
  it('refuses tokens issued before a new epoch, and keeps the later of two cut-offs', () => {
    assert.equal(withEpochTokens(ALWAYS_USABLE, () => EPOCH).tokensNotBeforeMs(), null);
    assert.equal(withEpochTokens(ALWAYS_USABLE, () => ({ ...EPOCH, tokens_not_before_ms: 5 })).tokensNotBeforeMs(), 5);
    const redisCut = { problem: () => null, tokensNotBeforeMs: () => 9 };
    assert.equal(withEpochTokens(redisCut, () => ({ ...EPOCH, tokens_not_before_ms: 5 })).tokensNotBeforeMs(), 9);
  });
});
