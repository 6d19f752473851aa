// The audit backends behind one interface: which one a configuration opens, and the file backend owning its whole layout.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { AUDIT_BACKENDS, selectedBackend } from '../../../src/audit/backends.js';
import { CheckpointSigner } from '../../../src/audit/proof/checkpoint.js';
import { sha256Hex } from '../../../src/audit/record/sha256.js';
import { openChainSource } from '../../../src/audit/verify/bulk-sources.js';
import { loadConfig } from '../../../src/config.js';
import { openReplaySource } from '../../../src/evaluation/replay/replay-sources.js';
import { sampleEntry, WALLET_A } from '../../support/audit-fixtures.js';
import { useTempDirs } from '../../support/temp-dirs.js';

const tempDir = useTempDirs('audit-backends-test-');
const context = { log: () => undefined, now: () => 1_800_000_000_000 };
const FACTS = '{"input":{"amount":1}}';

describe('selectedBackend', () => {
  it('opens Redis only when AUDIT_STORE is redis and REDIS_URL is set, the file log otherwise', () => {
    assert.equal(selectedBackend(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379' })).name, 'redis');
    assert.equal(selectedBackend(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379', AUDIT_STORE: 'file' })).name, 'file');
    assert.equal(selectedBackend(loadConfig({})).name, 'file');
  });
});

describe('file backend', () => {
  it('keeps its records, facts and checkpoints under DATA_DIR/audit, where the tools read them', async () => {
    const dataDir = await tempDir();
    const config = loadConfig({ DATA_DIR: dataDir, AUDIT_FSYNC: 'always' });
    const opened = await selectedBackend(config).open(config, context);
    const record = await opened.log.append({ ...sampleEntry(WALLET_A, 1), facts: { text: FACTS, hash: sha256Hex(FACTS) } });
    // A file store checks each checkpoint's signature as it reads it back, so this one is really signed.
    const signer = new CheckpointSigner(Buffer.alloc(32, 7));
    const checkpoints = await opened.openCheckpoints(signer.published);
    const checkpoint = signer.sign({ tree_size: 1, root_hash: record.hash, timestamp: 1, last_seq: 1, last_hash: record.hash });
    await checkpoints.add(checkpoint);
    await checkpoints.close();
    await opened.log.close();

    const reopened = await opened.openCheckpoints(signer.published);
    assert.deepEqual(await reopened.latest(), checkpoint);
    await reopened.close();
    const chain = await openChainSource(dataDir, AUDIT_BACKENDS);
    assert.equal(chain.name, join(dataDir, 'audit', 'audit.log'));
    const replay = await openReplaySource(dataDir, 1, 1, AUDIT_BACKENDS);
    const items = [];
    for await (const item of replay.items) items.push(item);
    assert.deepEqual(items.map((item) => [item.seq, item.facts?.text]), [[1, FACTS]]);
  });

  it('is not asked to read what it does not hold; no backend then reads the location', async () => {
    const empty = await tempDir();
    await mkdir(join(empty, 'audit'));
    for (const backend of AUDIT_BACKENDS) assert.equal(await backend.chainSource(empty), null, backend.name);
    await assert.rejects(openChainSource(empty, AUDIT_BACKENDS), { message: `${empty} holds no audit log: neither audit/audit.log nor audit.log` });
    await assert.rejects(openReplaySource(empty, 1, 1, AUDIT_BACKENDS), { message: `${empty} holds no audit log: neither audit/audit.log nor audit.log` });
  });
});
