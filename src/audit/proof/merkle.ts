// The Merkle tree over the global audit chain, in the shape of RFC 9162 section 2.1:
// leaf i is the record with seq i + 1, its leaf hash SHA-256(0x00 || the record's 32 hash bytes),
// interior nodes SHA-256(0x01 || left || right) (ARCHITECTURE.md "Checkpoints and proofs").
import { sha256Binary } from '../record/sha256.js';

const HASH_BYTES = 32;

/**
 * A hash as a binary string: 32 characters, each one byte (latin1). Node 20's crypto.hash() hands
 * back a string in about 0.3 us for a node and takes 0.5 to 1 us more to make a Buffer, so the
 * verifier's hot loops (src/audit/proof/proof-check.ts TreeFrontier) keep hashes in this form.
 */
export type BinaryHash = string;

// One-shot hashing over a reused input buffer: about 0.4 us a node against 1.5 us for createHash().update().digest().
const leafInput = Buffer.alloc(1 + HASH_BYTES, 0x00);
const nodeInput = Buffer.alloc(1 + 2 * HASH_BYTES, 0x01);
const digest: (bytes: Uint8Array) => BinaryHash = sha256Binary;

/** RFC 9162 section 2.1.1: the hash of a leaf whose data is the record's 32 raw hash bytes. */
export function leafHash(recordHash: string | Uint8Array): Buffer {
  return Buffer.from(leafHashBinary(recordHash), 'latin1');
}

export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  nodeInput.set(left, 1);
  nodeInput.set(right, 1 + HASH_BYTES);
  return Buffer.from(digest(nodeInput), 'latin1');
}

/** leafHash as a binary string. */
export function leafHashBinary(recordHash: string | Uint8Array): BinaryHash {
  if (typeof recordHash === 'string') {
    // Writing hex stops at the first character that is not hex: fewer than 32 bytes means it was not a hash.
    if (recordHash.length !== 2 * HASH_BYTES || leafInput.write(recordHash, 1, 'hex') !== HASH_BYTES) {
      throw new RangeError('a record hash is 32 bytes (64 hex digits)');
    }
  } else {
    if (recordHash.length !== HASH_BYTES) throw new RangeError('a record hash is 32 bytes (64 hex digits)');
    leafInput.set(recordHash, 1);
  }
  return digest(leafInput);
}

/** nodeHash over binary strings (each exactly 32 characters below U+0100, as digests are). */
export function nodeHashBinary(left: BinaryHash, right: BinaryHash): BinaryHash {
  if (left.length !== HASH_BYTES || right.length !== HASH_BYTES) throw new RangeError('a node hash is 32 bytes');
  nodeInput.write(left, 1, HASH_BYTES, 'latin1');
  nodeInput.write(right, 1 + HASH_BYTES, HASH_BYTES, 'latin1');
  return digest(nodeInput);
}

/** The largest power of two strictly below n (n >= 2), the split point of RFC 9162's MTH. */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** One level of the tree: hashes of the aligned complete subtrees of one size, packed end to end. */
class Level {
  private bytes = Buffer.alloc(HASH_BYTES * 1024);
  count = 0;

  /** Appends a hash given as a binary string (a digest as it comes), with no Buffer made for it. */
  push(hash: BinaryHash): void {
    if ((this.count + 1) * HASH_BYTES > this.bytes.length) {
      const grown = Buffer.alloc(this.bytes.length * 2);
      this.bytes.copy(grown);
      this.bytes = grown;
    }
    this.bytes.write(hash, this.count * HASH_BYTES, HASH_BYTES, 'latin1');
    this.count++;
  }

  at(index: number): Uint8Array {
    return this.bytes.subarray(index * HASH_BYTES, (index + 1) * HASH_BYTES);
  }

  /** Copies hashes `index` and `index + 1` into `target` from byte `offset` on: a parent's input, without views. */
  copyPair(index: number, target: Buffer, offset: number): void {
    this.bytes.copy(target, offset, index * HASH_BYTES, (index + 2) * HASH_BYTES);
  }
}

/** The root of a tree with no leaves: SHA-256 of nothing (RFC 9162 section 2.1.1), hex. */
export const EMPTY_ROOT = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/**
 * An append-only tree that keeps every aligned complete subtree's hash: level h holds the
 * hashes of leaves [j * 2^h, (j + 1) * 2^h). An append adds one leaf and at most log2(n)
 * parents; a root, inclusion or consistency proof for any earlier size reads O(log n) stored
 * hashes and computes at most O(log n) more, so no proof ever re-reads the log.
 */

export class MerkleTree {
  private readonly levels: Level[] = [new Level()];

  get size(): number {
    return this.levels[0].count;
  }

  /**
   * Appends the leaf for the next record, given the record's hash (64 hex or 32 bytes). Hashes go
   * from digest to level as binary strings: no Buffer per leaf or parent (about 1 us an append).
   */
  appendRecordHash(recordHash: string | Uint8Array): void {
    let index = this.levels[0].count;
    this.levels[0].push(leafHashBinary(recordHash));
    for (let height = 0; index % 2 === 1; height++) {
      this.levels[height].copyPair(index - 1, nodeInput, 1);
      index = (index - 1) / 2;
      if (this.levels.length === height + 1) this.levels.push(new Level());
      this.levels[height + 1].push(digest(nodeInput));
    }
  }

  leaf(index: number): Buffer {
    this.checkSize(index + 1);
    return Buffer.from(this.levels[0].at(index));
  }

  /** MTH(D[0:size]); the empty tree's root is SHA-256 of nothing (RFC 9162 section 2.1.1). */
  root(size = this.size): Buffer {
    this.checkSize(size);
    return size === 0 ? Buffer.from(digest(new Uint8Array(0)), 'latin1') : Buffer.from(this.subtree(0, size));
  }

  /** RFC 9162 section 2.1.3.1 PATH(index, D[0:size]), leaf upward. */
  inclusionProof(index: number, size: number): Buffer[] {
    this.checkSize(size);
    if (!Number.isSafeInteger(index) || index < 0 || index >= size) throw new RangeError(`leaf ${index} is not in a tree of ${size}`);
    const path: Buffer[] = [];
    this.path(index, 0, size, path);
    return path;
  }

  /** RFC 9162 section 2.1.4.1 PROOF(first, D[0:second]). */
  consistencyProof(first: number, second: number): Buffer[] {
    this.checkSize(second);
    if (!Number.isSafeInteger(first) || first < 1 || first > second) throw new RangeError(`no consistency proof from ${first} to ${second}`);
    const proof: Buffer[] = [];
    this.subproof(first, 0, second, true, proof);
    return proof;
  }

  private checkSize(size: number): void {
    if (!Number.isSafeInteger(size) || size < 0 || size > this.size) throw new RangeError(`the tree has ${this.size} leaves, not ${size}`);
  }

  /** MTH(D[start:end]); an aligned power-of-two range is stored, anything else splits as RFC 9162 does. */
  private subtree(start: number, end: number): Uint8Array {
    const n = end - start;
    if (isPowerOfTwo(n) && start % n === 0) return this.levels[Math.log2(n)].at(start / n);
    const k = splitPoint(n);
    return nodeHash(this.subtree(start, start + k), this.subtree(start + k, end));
  }

  private path(index: number, start: number, end: number, path: Buffer[]): void {
    const n = end - start;
    if (n === 1) return;
    const k = splitPoint(n);
    if (index < k) {
      this.path(index, start, start + k, path);
      path.push(Buffer.from(this.subtree(start + k, end)));
    } else {
      this.path(index - k, start + k, end, path);
      path.push(Buffer.from(this.subtree(start, start + k)));
    }
  }

  private subproof(m: number, start: number, end: number, whole: boolean, proof: Buffer[]): void {
    const n = end - start;
    if (m === n) {
      if (!whole) proof.push(Buffer.from(this.subtree(start, end)));
      return;
    }
    const k = splitPoint(n);
    if (m <= k) {
      this.subproof(m, start, start + k, whole, proof);
      proof.push(Buffer.from(this.subtree(start + k, end)));
    } else {
      this.subproof(m - k, start + k, end, false, proof);
      proof.push(Buffer.from(this.subtree(start, start + k)));
    }
  }
}

function isPowerOfTwo(n: number): boolean {
  return n > 0 && Number.isInteger(Math.log2(n));
}
