// What a verifier does against a service it does not trust: prove one record is in a signed tree, or
// extend a checkpoint it trusts by the records after it (ARCHITECTURE.md "Checkpoints and proofs").
import { Agent as HttpAgent, get as httpGet, type IncomingMessage } from 'node:http';
import { get as httpsGet } from 'node:https';
import { PATHS } from '../catalogue/published-facts.js';
import { opensslSha256Digest } from '../audit/sha256.js';
import { HASH_OK, LINK_OK, SHAPE_OK, scanChunk } from '../audit-verify/chunk-scan.js';
import { checkCheckpoint, type Checkpoint, type PublishedKey } from './checkpoint.js';
import { leafHash } from './merkle.js';
import { TreeFrontier, checkConsistency, checkInclusion } from './proof-check.js';

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

const refuse = (reason: string): never => {
  throw new ProofRefused(reason);
};

async function getJson(base: string, path: string): Promise<unknown> {
  const response = await fetch(new URL(path, base));
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}: ${text.slice(0, 300)}`);
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
 * Stored lines from `from` to `to` as they arrive, in runs of whole lines, a page of the export at
 * a time. node:http rather than fetch: it hands over an 8 MB page in half the time, and the lines
 * are checked while the rest of the page is still on the wire.
 */
async function* exportedLines(base: string, from: number, to: number): AsyncGenerator<Buffer> {
  for (let next = from; next <= to;) {
    const limit = Math.min(10_000, to - next + 1);
    const url = new URL(`${PATHS.auditExport}?from_seq=${next}&limit=${limit}`, base);
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      (url.protocol === 'https:' ? httpsGet : httpGet)(url, { agent: url.protocol === 'https:' ? undefined : keepAlive }, resolve).on('error', reject);
    });
    if (response.statusCode !== 200) {
      response.resume();
      throw new Error(`GET ${PATHS.auditExport} answered ${response.statusCode}`);
    }
    let rest: Buffer = Buffer.alloc(0);
    let lines = 0;
    for await (const chunk of response as AsyncIterable<Buffer>) {
      const joined = rest.length > 0 ? Buffer.concat([rest, chunk]) : chunk;
      const cut = joined.lastIndexOf(0x0a) + 1;
      rest = joined.subarray(cut);
      if (cut === 0) continue;
      const whole = joined.subarray(0, cut);
      lines += countLines(whole);
      yield whole;
    }
    if (rest.length > 0) {
      lines++;
      yield rest;
    }
    if (lines === 0) refuse(`record ${next} is missing from the export`);
    next += lines;
  }
}

const keepAlive = new HttpAgent({ keepAlive: true });

function countLines(bytes: Buffer): number {
  let count = 0;
  for (let at = bytes.indexOf(0x0a); at !== -1; at = bytes.indexOf(0x0a, at + 1)) count++;
  return count;
}

/**
 * Records `from` to `to`, each re-hashed as stored and (unless `previousHash` is null) linked to the
 * one before, by the same byte scan the chain verification uses (src/audit-verify/chunk-scan.ts);
 * yields each record's hash.
 */
async function* checkedLines(base: string, from: number, to: number, previousHash: string | null): AsyncGenerator<string> {
  let expected = from;
  let previous = previousHash;
  for await (const bytes of exportedLines(base, from, to)) {
    const scan = scanChunk(bytes, 'prev_hash', opensslSha256Digest);
    for (let i = 0; i < scan.count; i++, expected++) {
      if (expected > to) refuse(`the export gave records past ${to}`);
      const flags = scan.flags[i];
      if (!(flags & SHAPE_OK) || scan.seqs[i] !== expected) refuse(`record ${expected}: the export gave a line that is not record ${expected}`);
      if (!(flags & HASH_OK)) refuse(`record ${expected}: its bytes do not hash to its stored hash`);
      const linked = i === 0 ? previous === null || scan.firstLink === previous : (flags & LINK_OK) !== 0;
      if (!linked) refuse(`record ${expected}: prev_hash does not name the record before it`);
      const hash = bytes.toString('latin1', scan.starts[i], scan.starts[i] + 64);
      previous = hash;
      yield hash;
    }
  }
  if (expected <= to) refuse(`record ${expected} is missing from the export`);
}

/** `audit:verify --prove SEQ`: the record's bytes, its leaf, its path and the signed checkpoint, all checked here. */
export async function proveRecord(base: string, seq: number, key?: PublishedKey): Promise<ProvenRecord> {
  const trusted = key ?? await publishedKey(base);
  const proof = await getJson(base, `${PATHS.auditProof}/${seq}`) as Record<string, unknown>;
  const checkpoint = signedCheckpoint(proof.checkpoint, trusted, 'the checkpoint');
  if (proof.seq !== seq || proof.leaf_index !== seq - 1) refuse(`the proof is for record ${String(proof.seq)}, not ${seq}`);
  if (proof.tree_size !== checkpoint.tree_size) refuse(`the proof is for a tree of ${String(proof.tree_size)}, the checkpoint signs ${checkpoint.tree_size}`);
  let hash = '';
  for await (const checked of checkedLines(base, seq, seq, null)) hash = checked;
  const leaf = leafHash(hash).toString('hex');
  if (proof.leaf_hash !== leaf) refuse(`the proof's leaf is not record ${seq}'s (its leaf hash is ${leaf})`);
  const path = Array.isArray(proof.audit_path) ? (proof.audit_path as string[]) : refuse('the proof has no audit_path');
  const fault = checkInclusion(leaf, seq - 1, checkpoint.tree_size, path, checkpoint.root_hash);
  if (fault) refuse(`inclusion: ${fault}`);
  return { seq, hash, checkpoint };
}

/**
 * `audit:verify --since`: from a checkpoint the caller trusts (null: from the first record), reads
 * only the records after it, checks each one's bytes and link, rebuilds the tree's new root from
 * the trusted tree's frontier plus them, and checks the latest signed checkpoint and the service's
 * consistency proof against it. Work grows with the new records, not the chain.
 */
export async function extendCheckpoint(base: string, trusted: Checkpoint | null, key?: PublishedKey): Promise<ExtendedCheckpoint> {
  const pinned = key ?? await publishedKey(base);
  const from = trusted === null ? null : signedCheckpoint(trusted, pinned, 'the trusted checkpoint');
  const to = signedCheckpoint(await getJson(base, PATHS.auditCheckpoint), pinned, 'the latest checkpoint');
  const fromSize = from?.tree_size ?? 0;
  if (to.tree_size < fromSize) refuse(`the latest checkpoint (${to.tree_size}) is older than the trusted one (${fromSize})`);
  let frontier = TreeFrontier.empty();
  if (from) {
    const consistency = await getJson(base, `${PATHS.auditConsistency}?first=${from.tree_size}&second=${to.tree_size}`) as Record<string, unknown>;
    if (consistency.first !== from.tree_size || consistency.second !== to.tree_size) refuse('the consistency proof is for other sizes');
    const proof = Array.isArray(consistency.proof) ? (consistency.proof as string[]) : refuse('the consistency proof has no proof');
    const fault = checkConsistency(from.tree_size, to.tree_size, from.root_hash, to.root_hash, proof);
    if (fault) refuse(`consistency with the trusted checkpoint: ${fault}`);
    frontier = await trustedFrontier(base, from);
  }
  let records = 0;
  for await (const hash of checkedLines(base, fromSize + 1, to.tree_size, from?.last_hash ?? '0'.repeat(64))) {
    frontier.appendRecordHash(hash);
    records++;
  }
  if (to.tree_size > fromSize && frontier.root() !== to.root_hash) refuse('the records after the trusted checkpoint do not build the signed root');
  if (to.tree_size === fromSize && to.root_hash !== from?.root_hash) refuse('two checkpoints of one size have different roots');
  return { from: from ?? to, to, records };
}

/** The trusted tree's complete subtrees, from its last leaf's inclusion path checked against its own root. */
async function trustedFrontier(base: string, from: Checkpoint): Promise<TreeFrontier> {
  const proof = await getJson(base, `${PATHS.auditProof}/${from.tree_size}?tree_size=${from.tree_size}`) as Record<string, unknown>;
  const leaf = leafHash(from.last_hash).toString('hex');
  const path = Array.isArray(proof.audit_path) ? (proof.audit_path as string[]) : refuse('the last leaf\'s proof has no audit_path');
  const fault = checkInclusion(leaf, from.tree_size - 1, from.tree_size, path, from.root_hash);
  if (fault) refuse(`the trusted checkpoint's last record: ${fault}`);
  return TreeFrontier.fromLastLeaf(from.tree_size, leaf, path);
}
