// What a verifier does against a service it does not trust: prove one record is in a signed tree, or
// extend a checkpoint it trusts by the records after it (ARCHITECTURE.md "Checkpoints and proofs").
import { PATHS } from '../../catalogue/published-facts.js';
import { opensslSha256Digest } from '../record/sha256.js';
import { HASH_OK, LINK_OK, SHAPE_OK, scanChunk } from '../verify/chunk-scan.js';
import { checkCheckpoint, type Checkpoint, type PublishedKey } from './checkpoint.js';
import { leafHash, leafHashBinary } from './merkle.js';
import { TreeFrontier, checkConsistency, checkInclusion } from './proof-check.js';
import { ExportLines, getText } from './service-reads.js';

/** A check that failed, with the reason a report prints. */
export class ProofRefused extends Error {
  override name = 'ProofRefused';
}

export interface ProvenRecord {
  seq: number;
  hash: string;
  checkpoint: Checkpoint;
}

export interface ExtendedCheckpoint {
  from: Checkpoint;
  to: Checkpoint;
  /** Records read and checked: the ones after `from`. */
  records: number;
}

export const refuse = (reason: string): never => {
  throw new ProofRefused(reason);
};

export async function getJson(base: string, path: string): Promise<unknown> {
  const { status, text } = await getText(base, path);
  if (status !== 200) throw new Error(`GET ${path} answered ${status}: ${text.slice(0, 300)}`);
  try {
    return JSON.parse(text);
  } catch {
    return refuse(`GET ${path} did not answer JSON`);
  }
}

export async function publishedKey(base: string): Promise<PublishedKey> {
  return (await getJson(base, PATHS.auditKey)) as PublishedKey;
}

function signedCheckpoint(value: unknown, key: PublishedKey, what: string): Checkpoint {
  const fault = checkCheckpoint(value, key);
  if (fault) refuse(`${what}: ${fault}`);
  return value as Checkpoint;
}

/**
 * Records `from` to `to`, each re-hashed as stored and (unless `previousHash` is null) linked to the
 * one before, by the same byte scan the chain verification uses (src/audit/verify/chunk-scan.ts);
 * hands each record's hash (the 32 bytes its line hashed to, which its stored hash names) to `each`, in order.
 */
export async function checkLines(
  lines: AsyncIterable<Buffer>, from: number, to: number, previousHash: string | null, each: (recordHash: Uint8Array) => void,
): Promise<void> {
  let expected = from;
  let previous = previousHash;
  for await (const bytes of lines) {
    // The scan hashes every framed line once, in order; a line it does not hash is refused below
    // before any line after it, so digests[i] is line i's for every line handed on.
    const digests: Uint8Array[] = [];
    const scan = scanChunk(bytes, 'prev_hash', (body) => {
      const digest = opensslSha256Digest(body);
      digests.push(digest);
      return digest;
    });
    for (let i = 0; i < scan.count; i++, expected++) {
      if (expected > to) refuse(`the export gave records past ${to}`);
      const flags = scan.flags[i];
      if (!(flags & SHAPE_OK) || scan.seqs[i] !== expected) refuse(`record ${expected}: the export gave a line that is not record ${expected}`);
      if (!(flags & HASH_OK)) refuse(`record ${expected}: its bytes do not hash to its stored hash`);
      const linked = i === 0 ? previous === null || scan.firstLink === previous : (flags & LINK_OK) !== 0;
      if (!linked) refuse(`record ${expected}: prev_hash does not name the record before it`);
      each(digests[i]);
    }
    if (scan.count > 0) previous = scan.lastStored;
  }
  if (expected <= to) refuse(`record ${expected} is missing from the export`);
}

/** `audit:verify --prove SEQ`: the record's bytes, its leaf, its path and the signed checkpoint, all checked here. */
export async function proveRecord(base: string, seq: number): Promise<ProvenRecord> {
  const trusted = await publishedKey(base);
  const proof = await getJson(base, `${PATHS.auditProof}/${seq}`) as Record<string, unknown>;
  const checkpoint = signedCheckpoint(proof.checkpoint, trusted, 'the checkpoint');
  if (proof.seq !== seq || proof.leaf_index !== seq - 1) refuse(`the proof is for record ${String(proof.seq)}, not ${seq}`);
  if (proof.tree_size !== checkpoint.tree_size) refuse(`the proof is for a tree of ${String(proof.tree_size)}, the checkpoint signs ${checkpoint.tree_size}`);
  let hash = '';
  await checkLines(new ExportLines(base, seq, seq), seq, seq, null, (recordHash) => {
    hash = Buffer.from(recordHash).toString('hex');
  });
  const leaf = leafHash(hash).toString('hex');
  if (proof.leaf_hash !== leaf) refuse(`the proof's leaf is not record ${seq}'s (its leaf hash is ${leaf})`);
  const path = Array.isArray(proof.audit_path) ? (proof.audit_path as string[]) : refuse('the proof has no audit_path');
  const fault = checkInclusion(leaf, seq - 1, checkpoint.tree_size, path, checkpoint.root_hash);
  if (fault) refuse(`inclusion: ${fault}`);
  return { seq, hash, checkpoint };
}

export interface ExtendOptions {
  /** Records checked so far of the `total` after the trusted checkpoint, every few thousand and at the end. */
  onProgress?: (checked: number, total: number) => void;
}

const PROGRESS_EVERY = 4_096;

/**
 * `audit:verify --since`: from a checkpoint the caller trusts (null: from the first record), reads
 * only the records after it, checks each one's bytes and link, rebuilds the tree's new root from
 * the trusted tree's frontier plus them, and checks the latest signed checkpoint and the service's
 * consistency proof against it. Work grows with the new records, not the chain.
 */
export async function extendCheckpoint(base: string, trusted: Checkpoint | null, options: ExtendOptions = {}): Promise<ExtendedCheckpoint> {
  const latest = getJson(base, PATHS.auditCheckpoint);
  latest.catch(() => undefined); // awaited below, once the trusted checkpoint is checked
  const pinned = await publishedKey(base);
  const from = trusted === null ? null : signedCheckpoint(trusted, pinned, 'the trusted checkpoint');
  const to = signedCheckpoint(await latest, pinned, 'the latest checkpoint');
  const fromSize = from?.tree_size ?? 0;
  if (to.tree_size < fromSize) refuse(`the latest checkpoint (${to.tree_size}) is older than the trusted one (${fromSize})`);
  // The proofs first, as the service answers in turn, then the records: it reads them from its log while
  // the proofs are checked here.
  const edge = from ? trustedFrontier(base, from, to) : Promise.resolve(TreeFrontier.empty());
  edge.catch(() => undefined); // awaited below
  const lines = new ExportLines(base, fromSize + 1, to.tree_size);
  try {
    const frontier = await edge;
    const total = to.tree_size - fromSize;
    let records = 0;
    await checkLines(lines, fromSize + 1, to.tree_size, from?.last_hash ?? '0'.repeat(64), (recordHash) => {
      frontier.appendLeaf(leafHashBinary(recordHash));
      if (++records % PROGRESS_EVERY === 0) options.onProgress?.(records, total);
    });
    options.onProgress?.(records, total);
    if (to.tree_size > fromSize && frontier.root() !== to.root_hash) refuse('the records after the trusted checkpoint do not build the signed root');
    if (to.tree_size === fromSize && to.root_hash !== from?.root_hash) refuse('two checkpoints of one size have different roots');
    return { from: from ?? to, to, records };
  } finally {
    lines.close();
  }
}

/**
 * The trusted tree's complete subtrees, from its last leaf's inclusion path checked against its own
 * root, once the service's consistency proof from it to `to` holds. Both are asked for at once.
 */
async function trustedFrontier(base: string, from: Checkpoint, to: Checkpoint): Promise<TreeFrontier> {
  const [consistency, last] = await Promise.all([
    getJson(base, `${PATHS.auditConsistency}?first=${from.tree_size}&second=${to.tree_size}`),
    getJson(base, `${PATHS.auditProof}/${from.tree_size}?tree_size=${from.tree_size}`),
  ]) as Array<Record<string, unknown>>;
  if (consistency.first !== from.tree_size || consistency.second !== to.tree_size) refuse('the consistency proof is for other sizes');
  const proof = Array.isArray(consistency.proof) ? (consistency.proof as string[]) : refuse('the consistency proof has no proof');
  return trustedEdge(from, to, proof, last.audit_path, '');
}

/** What a tree edge is rebuilt from: a signed head of one chain's tree. */
export interface TreeHead {
  tree_size: number;
  root_hash: string;
  last_hash: string;
}

/**
 * The trusted tree's complete subtrees, once `consistency` proves the latest head extends it and
 * `lastPath` proves its last record under its own root; `label` names the chain in a refusal
 * (remote-partition-extend.ts checks each chain of a partitioned log with it).
 */
export function trustedEdge(trusted: TreeHead, latest: Omit<TreeHead, 'last_hash'>, consistency: string[], lastPath: unknown, label: string): TreeFrontier {
  const prefix = label === '' ? '' : `${label}: `;
  if (trusted.tree_size === 0) return TreeFrontier.empty();
  if (trusted.tree_size < latest.tree_size) {
    const inconsistent = checkConsistency(trusted.tree_size, latest.tree_size, trusted.root_hash, latest.root_hash, consistency);
    if (inconsistent) refuse(`${prefix}consistency with the trusted checkpoint: ${inconsistent}`);
  }
  const leaf = leafHash(trusted.last_hash).toString('hex');
  const path = Array.isArray(lastPath) ? (lastPath as string[]) : refuse(`${prefix}the last leaf's proof has no audit_path`);
  const fault = checkInclusion(leaf, trusted.tree_size - 1, trusted.tree_size, path, trusted.root_hash);
  if (fault) refuse(`${prefix}the trusted checkpoint's last record: ${fault}`);
  return TreeFrontier.fromLastLeaf(trusted.tree_size, leaf, path);
}
