import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { MerkleTree, leafHash, leafHashBinary, nodeHash, nodeHashBinary } from '../../../../src/audit/proof/merkle.js';
import { TreeFrontier, checkConsistency, checkInclusion } from '../../../../src/audit/proof/proof-check.js';

const recordHash = (i: number) => createHash('sha256').update(`record ${i}`).digest('hex');

/** MTH straight from RFC 9162 section 2.1.1, recursive and slow: the reference the tree must match. */
function referenceRoot(hashes: string[]): string {
  if (hashes.length === 0) return createHash('sha256').digest('hex');
  if (hashes.length === 1) return leafHash(hashes[0]).toString('hex');
  let k = 1;
  while (k * 2 < hashes.length) k *= 2;
  return nodeHash(Buffer.from(referenceRoot(hashes.slice(0, k)), 'hex'), Buffer.from(referenceRoot(hashes.slice(k)), 'hex')).toString('hex');
}

function treeOf(n: number): { tree: MerkleTree; hashes: string[] } {
  const tree = new MerkleTree();
  const hashes = Array.from({ length: n }, (_, i) => recordHash(i));
  for (const hash of hashes) tree.appendRecordHash(hash);
  return { tree, hashes };
}

const hex = (path: Buffer[]) => path.map((hash) => hash.toString('hex'));

test('the leaf and node hashes are domain-separated SHA-256 as RFC 9162 writes them', () => {
  const record = recordHash(1);
  assert.equal(leafHash(record).toString('hex'), createHash('sha256').update(Buffer.concat([Buffer.from([0]), Buffer.from(record, 'hex')])).digest('hex'));
  const [a, b] = [Buffer.alloc(32, 1), Buffer.alloc(32, 2)];
  assert.equal(nodeHash(a, b).toString('hex'), createHash('sha256').update(Buffer.concat([Buffer.from([1]), a, b])).digest('hex'));
});

test('every earlier root of the incremental tree equals the RFC definition', () => {
  const { tree, hashes } = treeOf(70);
  for (let size = 0; size <= 70; size++) assert.equal(tree.root(size).toString('hex'), referenceRoot(hashes.slice(0, size)), `size ${size}`);
});

test('every inclusion proof checks, and a changed sibling, index, size or leaf does not', () => {
  const { tree, hashes } = treeOf(37);
  for (let size = 1; size <= 37; size++) {
    const root = tree.root(size).toString('hex');
    for (let index = 0; index < size; index++) {
      const leaf = leafHash(hashes[index]).toString('hex');
      const path = hex(tree.inclusionProof(index, size));
      assert.equal(checkInclusion(leaf, index, size, path, root), null, `leaf ${index} of ${size}`);
      if (path.length > 0) {
        const tampered = [...path];
        tampered[0] = tampered[0].replace(/^./, (c) => (c === '0' ? '1' : '0'));
        assert.notEqual(checkInclusion(leaf, index, size, tampered, root), null);
        assert.notEqual(checkInclusion(leaf, index, size, path.slice(1), root), null);
      }
      if (size > 1) assert.notEqual(checkInclusion(leaf, (index + 1) % size, size, path, root), null);
      // A size alone is not bound by a path (a signed checkpoint binds it to its root): a larger tree's root is refused.
      if (size < 37) assert.notEqual(checkInclusion(leaf, index, size + 1, path, tree.root(size + 1).toString('hex')), null);
    }
  }
  assert.match(String(checkInclusion('a'.repeat(64), 5, 5, [], 'b'.repeat(64))), /outside a tree of 5/);
});

test('every consistency proof checks, and a changed hash, size or root does not', () => {
  const { tree } = treeOf(33);
  for (let second = 1; second <= 33; second++) {
    for (let first = 1; first <= second; first++) {
      const [a, b] = [tree.root(first).toString('hex'), tree.root(second).toString('hex')];
      const proof = hex(tree.consistencyProof(first, second));
      assert.equal(checkConsistency(first, second, a, b, proof), null, `${first} -> ${second}`);
      if (first < second) {
        const tampered = [...proof];
        tampered[tampered.length - 1] = '0'.repeat(64);
        assert.notEqual(checkConsistency(first, second, a, b, tampered), null);
        assert.notEqual(checkConsistency(first, second, b, a, proof), null);
        if (second < 33) assert.notEqual(checkConsistency(first, second + 1, a, tree.root(second + 1).toString('hex'), proof), null);
      }
    }
  }
});

test('a tree rebuilt from the last leaf and its path extends to the same roots as the whole tree', () => {
  const { tree, hashes } = treeOf(80);
  for (let size = 1; size <= 64; size++) {
    const frontier = TreeFrontier.fromLastLeaf(size, tree.leaf(size - 1).toString('hex'), hex(tree.inclusionProof(size - 1, size)));
    assert.equal(frontier.root(), tree.root(size).toString('hex'), `frontier of ${size}`);
    for (let n = size; n < 80; n++) frontier.appendLeaf(leafHashBinary(hashes[n]));
    assert.equal(frontier.root(), tree.root(80).toString('hex'));
    assert.equal(frontier.size, 80);
  }
});

test('the binary-string hashes are the Buffer hashes, and a record hash\'s leaf is the same from its bytes as from its hex', () => {
  const record = recordHash(2);
  const [a, b] = [Buffer.alloc(32, 0xfe), Buffer.alloc(32, 0x80)];
  assert.equal(leafHashBinary(record), leafHash(record).toString('latin1'));
  assert.equal(nodeHashBinary(a.toString('latin1'), b.toString('latin1')), nodeHash(a, b).toString('latin1'));
  assert.equal(leafHashBinary(Buffer.from(record, 'hex')), leafHashBinary(record));
  assert.throws(() => leafHashBinary(Buffer.from(record, 'hex').subarray(1)), /32 bytes/);
  assert.throws(() => leafHashBinary(`${record.slice(0, 63)}g`), /32 bytes/);
  assert.throws(() => nodeHashBinary(a.toString('latin1').slice(1), b.toString('latin1')), /32 bytes/);
});

test('an edge of the trusted tree that its root does not check is refused, and would not build the later root', () => {
  const { tree, hashes } = treeOf(80);
  const size = 37;
  const root = tree.root(size).toString('hex');
  const leaf = tree.leaf(size - 1).toString('hex');
  const path = hex(tree.inclusionProof(size - 1, size));
  for (let k = 0; k < path.length; k++) {
    const tampered = [...path];
    tampered[k] = tampered[k].replace(/^./, (c) => (c === '0' ? '1' : '0'));
    assert.equal(checkInclusion(leaf, size - 1, size, tampered, root), 'the audit path does not lead to the checkpoint root');
    const frontier = TreeFrontier.fromLastLeaf(size, leaf, tampered);
    for (let n = size; n < 80; n++) frontier.appendLeaf(leafHashBinary(hashes[n]));
    assert.notEqual(frontier.root(), tree.root(80).toString('hex'), `sibling ${k}`);
  }
  const otherLeaf = leafHash(hashes[0]).toString('hex');
  assert.equal(checkInclusion(otherLeaf, size - 1, size, path, root), 'the audit path does not lead to the checkpoint root');
  assert.throws(() => TreeFrontier.fromLastLeaf(size, leaf, path.slice(1)), /the last of 37 leaves has 2 entries/);
  assert.throws(() => TreeFrontier.fromLastLeaf(size + 1, leaf, path), /of 38 leaves has/);
});

test('proofs name sizes the tree does not have', () => {
  const { tree } = treeOf(4);
  assert.throws(() => tree.inclusionProof(0, 5), /has 4 leaves, not 5/);
  assert.throws(() => tree.inclusionProof(4, 4), /not in a tree of 4/);
  assert.throws(() => tree.consistencyProof(0, 4), /no consistency proof/);
});
