// One signed checkpoint over K audit chains: each chain's head is a leaf, the root of those K leaves is signed
// (ARCHITECTURE.md "Partitioned audit chains"). Pure: the service signs with it, a verifier checks with it.
import { isSha256Hex, sha256Hex } from '../record/sha256.js';
import { CheckpointSigner, signatureFault, signedBytes, type PublishedKey } from './checkpoint.js';
import { MerkleTree, leafHash } from './merkle.js';
import { checkInclusion, type ProofFault } from './proof-check.js';

/** One chain's tree head as a partitioned checkpoint lists it. */
export interface ChainHead {
  chain: number;
  /** Records in the chain's tree: seqs 1 to tree_size of that chain. */
  tree_size: number;
  /** The chain's RFC 9162 root; SHA-256 of nothing for an empty chain. */
  root_hash: string;
  /** The hash of the chain's record `tree_size`; 64 zeros for an empty chain. */
  last_hash: string;
}

/** A checkpoint of a partitioned log: every chain's head, and one root over them, signed once. */
export interface PartitionedCheckpoint {
  partitions: number;
  /** Records in all chains together: the sum of the chains' tree sizes, which names the checkpoint. */
  tree_size: number;
  /** RFC 9162 root of the K leaves, leaf p being chainLeafData(chains[p]). */
  root_hash: string;
  timestamp: number;
  chains: ChainHead[];
  key_id: string;
  signature: string;
}

export type UnsignedPartitionedCheckpoint = Omit<PartitionedCheckpoint, 'signature' | 'key_id'>;

/** A chain head's leaf data: SHA-256 of the RFC 8785 JSON of `{chain, tree_size, root_hash, last_hash}` (64 hex). */
export function chainLeafData(head: ChainHead): string {
  const { chain, tree_size, root_hash, last_hash } = head;
  return sha256Hex(signedBytes({ chain, tree_size, root_hash, last_hash }));
}

/** The leaf hash of chain `head` under the root: SHA-256(0x00 || its 32 leaf-data bytes), as record leaves are. */
export function chainLeafHash(head: ChainHead): string {
  return leafHash(chainLeafData(head)).toString('hex');
}

function headsTree(chains: readonly ChainHead[]): MerkleTree {
  const tree = new MerkleTree();
  for (const head of chains) tree.appendRecordHash(chainLeafData(head));
  return tree;
}

/** The root every chain's head hangs from. */
export function partitionRoot(chains: readonly ChainHead[]): string {
  return headsTree(chains).root().toString('hex');
}

/** Chain `p`'s place under the root: its RFC 9162 inclusion path among the K chain leaves. */
export function chainPath(chains: readonly ChainHead[], p: number): string[] {
  return headsTree(chains).inclusionProof(p, chains.length).map((hash) => hash.toString('hex'));
}

export function signPartitioned(signer: CheckpointSigner, body: Omit<UnsignedPartitionedCheckpoint, 'root_hash' | 'tree_size' | 'partitions'>): PartitionedCheckpoint {
  const unsigned = {
    partitions: body.chains.length, tree_size: body.chains.reduce((sum, head) => sum + head.tree_size, 0),
    root_hash: partitionRoot(body.chains), timestamp: body.timestamp, chains: body.chains, key_id: signer.published.key_id,
  };
  return { ...unsigned, signature: signer.signBytes(signedBytes(unsigned)) };
}

function chainsFault(chains: unknown): ProofFault {
  if (!Array.isArray(chains) || chains.length < 2) return 'chains is not a list of two or more chain heads';
  for (const [p, head] of (chains as Array<Record<string, unknown>>).entries()) {
    const keys = typeof head === 'object' && head !== null ? Object.keys(head).sort().join(',') : '';
    if (keys !== 'chain,last_hash,root_hash,tree_size') return `chain head ${p} has fields ${keys}`;
    if (head.chain !== p) return `chain head ${p} names chain ${String(head.chain)}`;
    if (!Number.isSafeInteger(head.tree_size) || (head.tree_size as number) < 0) return `chain ${p}'s tree_size is not a count`;
    if (!isSha256Hex(String(head.root_hash)) || !isSha256Hex(String(head.last_hash))) return `chain ${p}'s hashes are not 64 lower-case hex digits`;
  }
  return null;
}

function shapeFault(value: unknown): ProofFault {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'the checkpoint is not an object';
  const c = value as Record<string, unknown>;
  const keys = Object.keys(c).sort().join(',');
  if (keys !== 'chains,key_id,partitions,root_hash,signature,timestamp,tree_size') return `the checkpoint has fields ${keys}`;
  const chains = chainsFault(c.chains);
  if (chains) return chains;
  const heads = c.chains as ChainHead[];
  if (c.partitions !== heads.length) return `partitions (${String(c.partitions)}) is not the number of chains (${heads.length})`;
  if (c.tree_size !== heads.reduce((sum, head) => sum + head.tree_size, 0)) return 'tree_size is not the sum of the chains\' sizes';
  if (!Number.isSafeInteger(c.timestamp)) return 'timestamp is not integer milliseconds';
  if (typeof c.signature !== 'string' || typeof c.key_id !== 'string') return 'signature and key_id must be strings';
  return c.root_hash === partitionRoot(heads) ? null : 'root_hash is not the root over the chains\' heads';
}

/** Shape, the root over the listed heads, key and Ed25519 signature; null when `key` signed it as it reads. */
export function checkPartitionedCheckpoint(value: unknown, key: PublishedKey): ProofFault {
  const shape = shapeFault(value);
  if (shape) return shape;
  const { signature, ...unsigned } = value as PartitionedCheckpoint;
  return signatureFault(unsigned, signature, key);
}

/** A record's proof on a partitioned log, as GET /api/v1/audit/proof/{seq}?chain=p answers it. */
export interface PartitionedInclusionProof {
  chain: number;
  seq: number;
  leaf_index: number;
  leaf_hash: string;
  /** The chain's tree size under the checkpoint. */
  tree_size: number;
  /** From the record's leaf to the chain's root. */
  audit_path: string[];
  /** From the chain's leaf to the checkpoint's root. */
  chain_path: string[];
  checkpoint: PartitionedCheckpoint;
}

/**
 * Both halves of a record's proof against a checkpoint already checked: the record's leaf up to its
 * chain's root, then that chain's head leaf up to the signed root.
 */
export function checkPartitionedInclusion(leaf: string, seq: number, proof: PartitionedInclusionProof, checkpoint: PartitionedCheckpoint): ProofFault {
  const head = checkpoint.chains[proof.chain];
  if (!head) return `the checkpoint has no chain ${String(proof.chain)}`;
  if (proof.tree_size !== head.tree_size) return `the proof is for a chain tree of ${String(proof.tree_size)}, the checkpoint signs ${head.tree_size}`;
  const inChain = checkInclusion(leaf, seq - 1, head.tree_size, proof.audit_path, head.root_hash);
  if (inChain) return `within chain ${head.chain}: ${inChain}`;
  const underRoot = checkInclusion(chainLeafHash(head), head.chain, checkpoint.partitions, proof.chain_path, checkpoint.root_hash);
  return underRoot ? `chain ${head.chain} under the checkpoint root: ${underRoot}` : null;
}
