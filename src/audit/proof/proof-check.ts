// Checking Merkle proofs as a verifier does, with nothing but the proof and a root it trusts:
// RFC 9162 sections 2.1.3.2 (inclusion) and 2.1.4.2 (consistency), and extending a trusted
// tree by new leaves (ARCHITECTURE.md "Checkpoints and proofs").
import { nodeHash, nodeHashBinary, type BinaryHash } from './merkle.js';

/** Why a proof does not hold, in words a report can print; null when it holds. */
export type ProofFault = string | null;

const HEX64 = /^[0-9a-f]{64}$/;

function hashes(path: readonly string[]): Buffer[] | null {
  return path.every((hash) => typeof hash === 'string' && HEX64.test(hash)) ? path.map((hash) => Buffer.from(hash, 'hex')) : null;
}

const half = (n: number) => Math.floor(n / 2);
const odd = (n: number) => n % 2 === 1;

/**
 * RFC 9162 section 2.1.3.2: does `path` lead from the leaf at `index` of a `size`-leaf tree
 * to `root`? Sizes go up to 2^53, so the bit steps are done in arithmetic, not 32-bit shifts.
 */
export function checkInclusion(leaf: string, index: number, size: number, path: readonly string[], root: string): ProofFault {
  if (!Number.isSafeInteger(size) || size < 1) return `tree size ${size} is not a positive integer`;
  if (!Number.isSafeInteger(index) || index < 0 || index >= size) return `leaf index ${index} is outside a tree of ${size}`;
  const steps = hashes(path);
  if (!steps || !HEX64.test(leaf) || !HEX64.test(root)) return 'a hash is not 64 lower-case hex digits';
  let fn = index;
  let sn = size - 1;
  let r: Buffer = Buffer.from(leaf, 'hex');
  for (const p of steps) {
    if (sn === 0) return 'the audit path is longer than the tree is deep';
    if (odd(fn) || fn === sn) {
      r = nodeHash(p, r);
      while (!odd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  if (sn !== 0) return 'the audit path is shorter than the tree is deep';
  return r.toString('hex') === root ? null : 'the audit path does not lead to the checkpoint root';
}

/** RFC 9162 section 2.1.4.2: is the `second`-leaf tree with `secondRoot` an extension of the `first`-leaf one? */
export function checkConsistency(
  first: number, second: number, firstRoot: string, secondRoot: string, proof: readonly string[],
): ProofFault {
  if (!Number.isSafeInteger(first) || !Number.isSafeInteger(second) || first < 1 || first > second) {
    return `no consistency proof goes from ${first} leaves to ${second}`;
  }
  const steps = hashes(proof);
  if (!steps || !HEX64.test(firstRoot) || !HEX64.test(secondRoot)) return 'a hash is not 64 lower-case hex digits';
  if (first === second) {
    if (steps.length > 0) return 'a proof between equal sizes must be empty';
    return firstRoot === secondRoot ? null : 'two checkpoints of one size have different roots';
  }
  if (steps.length === 0) return 'the consistency proof is empty';
  if (Number.isInteger(Math.log2(first))) steps.unshift(Buffer.from(firstRoot, 'hex'));
  let fn = first - 1;
  let sn = second - 1;
  while (odd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  let fr: Buffer = steps[0];
  let sr: Buffer = steps[0];
  for (const c of steps.slice(1)) {
    if (sn === 0) return 'the consistency proof is longer than the tree is deep';
    if (odd(fn) || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      while (!odd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = half(fn);
    sn = half(sn);
  }
  if (sn !== 0) return 'the consistency proof is shorter than the tree is deep';
  if (fr.toString('hex') !== firstRoot) return 'the consistency proof does not rebuild the earlier root';
  if (sr.toString('hex') !== secondRoot) return 'the consistency proof does not rebuild the later root';
  return null;
}

/**
 * A tree known only by its complete subtrees, largest first (RFC 9162's compact range of
 * [0, size)): enough to append leaves and compute the root, the way a verifier that trusts
 * one checkpoint extends it by the records after it without the records before it. Hashes are
 * kept as binary strings, the form node:crypto hands back fastest (src/audit/proof/merkle.ts).
 */
export class TreeFrontier {
  /** `hashes` are the complete subtrees of a `count`-leaf tree, largest first: one per one bit of `count`. */
  private constructor(private count: number, private readonly hashes: BinaryHash[]) {}

  static empty(): TreeFrontier {
    return new TreeFrontier(0, []);
  }

  /**
   * The frontier of a `size`-leaf tree from its last leaf and that leaf's inclusion path
   * (checked against the root by the caller): the first z path entries, z the number of
   * trailing zero bits of `size`, lie inside the smallest complete subtree; the rest are
   * the larger complete subtrees, smallest first.
   */
  static fromLastLeaf(size: number, lastLeaf: string, path: readonly string[]): TreeFrontier {
    const steps = hashes(path);
    if (!steps || !HEX64.test(lastLeaf)) throw new RangeError('a hash is not 64 lower-case hex digits');
    if (!Number.isSafeInteger(size) || size < 1) throw new RangeError(`tree size ${size} is not a positive integer`);
    let inner = 0;
    for (let rest = size; rest % 2 === 0; rest /= 2) inner++;
    let smallest: Buffer = Buffer.from(lastLeaf, 'hex');
    for (const p of steps.slice(0, inner)) smallest = nodeHash(p, smallest);
    let subtrees = 0;
    for (let rest = size; rest > 0; rest = Math.floor(rest / 2)) subtrees += rest % 2;
    const larger = steps.slice(inner).reverse();
    if (larger.length !== subtrees - 1) throw new RangeError(`an inclusion path of the last of ${size} leaves has ${inner + subtrees - 1} entries`);
    return new TreeFrontier(size, [...larger, smallest].map((hash) => hash.toString('latin1')));
  }

  get size(): number {
    return this.count;
  }

  /** Appends the next leaf hash (leafHashBinary of the record's hash), merging as MerkleTree.appendRecordHash does. */
  appendLeaf(leaf: BinaryHash): void {
    let hash = leaf;
    for (let n = this.count; n % 2 === 1; n = (n - 1) / 2) hash = nodeHashBinary(this.hashes.pop()!, hash);
    this.hashes.push(hash);
    this.count++;
  }

  root(): string {
    const stack = this.hashes;
    if (stack.length === 0) throw new RangeError('an empty tree has no checkpoint');
    let root = stack[stack.length - 1];
    for (let i = stack.length - 2; i >= 0; i--) root = nodeHashBinary(stack[i], root);
    return Buffer.from(root, 'latin1').toString('hex');
  }
}
