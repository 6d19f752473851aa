// The partitioned checkpoint store on a real redis-server: checkpoints signed from two instances' views of the chains
// are kept only when each extends the latest chain by chain, so a consistency proof exists between any two stored ones.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CheckpointSigner } from '../../../../src/audit/proof/checkpoint.js';
import { MerkleTree } from '../../../../src/audit/proof/merkle.js';
import { signPartitioned, type ChainHead } from '../../../../src/audit/proof/partition-root.js';
import { partitionOf } from '../../../../src/audit/record/partition.js';
import { PartitionedAuditLog } from '../../../../src/audit/redis/partitioned-audit-log.js';
import { RedisPartitionedCheckpoints } from '../../../../src/audit/redis/partitioned-checkpoints.js';
import { sampleEntry } from '../../../support/audit-fixtures.js';
import { startRedisServer, type RedisServer } from '../../../support/redis-server.js';
import { useTempDirs } from '../../../support/temp-dirs.js';

const signer = new CheckpointSigner(Buffer.alloc(32, 11));
const tempDir = useTempDirs('guardrail-partitioned-checkpoints-');
let redis: RedisServer;
let log: PartitionedAuditLog;
let store: RedisPartitionedCheckpoints;
/** Each chain's record hashes, in seq order. */
const hashes: string[][] = [[], []];

before(async () => {
  redis = await startRedisServer();
  log = await PartitionedAuditLog.connect(redis.url, 2, { now: Date.now, dataDir: await tempDir() });
  store = await RedisPartitionedCheckpoints.connect(redis.url, log.chains, signer.published);
  // Three records in each of the two chains.
  for (let n = 0; hashes.some((chain) => chain.length < 3); n++) {
    const wallet = `0x${(0xc000 + n).toString(16).padStart(40, '0')}`;
    const chain = partitionOf(wallet, 2);
    if (hashes[chain].length < 3) hashes[chain].push((await log.append(sampleEntry(wallet, n))).hash);
  }
});
after(async () => {
  await store?.close();
  await log?.close();
  await redis?.stop();
});

/** A checkpoint over the first `sizes[p]` records of each chain, as an instance that had read that far signs it. */
function signedAt(sizes: number[], timestamp: number) {
  const chains: ChainHead[] = sizes.map((size, p) => {
    const tree = new MerkleTree();
    hashes[p].slice(0, size).forEach((hash) => tree.appendRecordHash(hash));
    return { chain: p, tree_size: size, root_hash: tree.root().toString('hex'), last_hash: size === 0 ? '0'.repeat(64) : hashes[p][size - 1] };
  });
  return signPartitioned(signer, { timestamp, chains });
}

describe('partitioned checkpoints from two instances', () => {
  it('keep only checkpoints that extend the latest in every chain', async () => {
    const first = signedAt([2, 1], 1);
    assert.deepEqual(await store.add(first), first);
    // Another instance had read chain 1 further and chain 0 less: its sum is larger, its chain 0 shorter.
    const crossing = signedAt([1, 3], 2);
    assert.deepEqual(await store.add(crossing), first, 'the latest is answered, not the crossing checkpoint');
    assert.equal(await store.atSize(4), null);
    // Smaller than the latest: a view that trailed it in every chain is not stored either.
    assert.deepEqual(await store.add(signedAt([1, 1], 3)), first);
    assert.equal(await store.atSize(2), null);
    const later = signedAt([3, 2], 4);
    assert.deepEqual(await store.add(later), later);
    assert.deepEqual([(await store.latest())?.tree_size, (await store.atSize(3))?.tree_size], [5, 3]);
  });

  it('keep the first checkpoint of a size, as the single chain does', async () => {
    const same = signedAt([3, 3], 5);
    assert.deepEqual(await store.add(same), same);
    assert.deepEqual(await store.add(signedAt([3, 3], 6)), same);
  });
});
