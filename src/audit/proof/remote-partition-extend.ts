// `audit:verify --since` against a service whose log is partitioned: from a checkpoint the caller trusts, each chain is
// extended by its own records after it, checked by the chain's consistency proof and rebuilt from the trusted chain tree's
// edge; nothing the service says is trusted (ARCHITECTURE.md "Partitioned audit chains", "Checkpoints and proofs").
import { PATHS } from '../../catalogue/published-facts.js';
import type { PublishedKey } from './checkpoint.js';
import { ZERO_HASH } from '../record/audit-log.js';
import { EMPTY_ROOT, leafHashBinary } from './merkle.js';
import { checkPartitionedCheckpoint, type ChainHead, type PartitionedCheckpoint } from './partition-root.js';
import { TreeFrontier } from './proof-check.js';
import { checkLines, getJson, publishedKey, refuse, trustedEdge, type ExtendOptions } from './remote-check.js';
import { ExportLines } from './service-reads.js';

export interface ExtendedChain {
  chain: number;
  from: number;
  to: number;
}

export interface ExtendedPartitionedCheckpoint {
  from: PartitionedCheckpoint;
  to: PartitionedCheckpoint;
  /** Records read and checked, in all chains. */
  records: number;
  chains: ExtendedChain[];
}

/** Whether a checkpoint (trusted or served) has the partitioned log's shape: `chains` beside the root. */
export function isPartitionedCheckpoint(value: unknown): value is PartitionedCheckpoint {
  return typeof value === 'object' && value !== null && Array.isArray((value as { chains?: unknown }).chains);
}

function signed(value: unknown, key: PublishedKey, what: string): PartitionedCheckpoint {
  const fault = checkPartitionedCheckpoint(value, key);
  if (fault) refuse(`${what}: ${fault}`);
  return value as PartitionedCheckpoint;
}

/**
 * From `trusted` (null: from every chain's first record) to the latest signed checkpoint: the latest must extend the
 * trusted one in every chain, each chain's consistency proof must hold, and each chain's new records, checked one by one
 * as the export streams in, must rebuild the root that chain has under the latest checkpoint.
 */
export async function extendPartitionedCheckpoint(base: string, trusted: unknown, options: ExtendOptions = {}): Promise<ExtendedPartitionedCheckpoint> {
  const pinned = await publishedKey(base);
  const from = trusted === null ? null : signed(trusted, pinned, 'the trusted checkpoint');
  const to = signed(await getJson(base, PATHS.auditCheckpoint), pinned, 'the latest checkpoint');
  if (from && from.partitions !== to.partitions) refuse(`the trusted checkpoint signs ${from.partitions} chains, the latest ${to.partitions}`);
  const starts = to.chains.map((head) => from?.chains[head.chain] ?? emptyHead(head.chain));
  const shrunk = to.chains.find((head) => head.tree_size < starts[head.chain].tree_size);
  if (shrunk) refuse(`chain ${shrunk.chain} has ${shrunk.tree_size} records under the latest checkpoint, ${starts[shrunk.chain].tree_size} under the trusted one`);
  const edges = from && from.tree_size < to.tree_size ? await trustedEdges(base, from, to) : starts.map(() => TreeFrontier.empty());
  const total = to.tree_size - (from?.tree_size ?? 0);
  let records = 0;
  for (const head of to.chains) {
    records += await extendChain(base, starts[head.chain], head, edges[head.chain], (checked) => options.onProgress?.(records + checked, total));
  }
  options.onProgress?.(records, total);
  if (from && from.tree_size === to.tree_size && from.root_hash !== to.root_hash) refuse('two checkpoints of one size have different roots');
  const chains = to.chains.map((head) => ({ chain: head.chain, from: starts[head.chain].tree_size, to: head.tree_size }));
  return { from: from ?? to, to, records, chains };
}

function emptyHead(chain: number): ChainHead {
  return { chain, tree_size: 0, root_hash: EMPTY_ROOT, last_hash: ZERO_HASH };
}

/** One chain's records after `start`, each re-hashed and linked, then its rebuilt root against the latest head. */
async function extendChain(base: string, start: ChainHead, end: ChainHead, edge: TreeFrontier, progress: (checked: number) => void): Promise<number> {
  const p = end.chain;
  if (end.tree_size === start.tree_size) {
    if (end.root_hash !== start.root_hash || end.last_hash !== start.last_hash) refuse(`chain ${p}: two heads of ${end.tree_size} records differ`);
    return 0;
  }
  const lines = new ExportLines(base, start.tree_size + 1, end.tree_size, p);
  let records = 0;
  let last = '';
  try {
    await checkLines(lines, start.tree_size + 1, end.tree_size, start.last_hash, (recordHash) => {
      edge.appendLeaf(leafHashBinary(recordHash));
      last = Buffer.from(recordHash).toString('hex');
      if (++records % 4_096 === 0) progress(records);
    });
  } catch (error) {
    if (error instanceof Error) error.message = `chain ${p}: ${error.message}`;
    throw error;
  } finally {
    lines.close();
  }
  if (edge.root() !== end.root_hash) refuse(`chain ${p}: the records after the trusted checkpoint do not build the signed root`);
  if (last !== end.last_hash) refuse(`chain ${p}: its last record is not the one the latest checkpoint names`);
  return records;
}

/**
 * Each chain's trusted tree edge, from its last leaf's inclusion path under the trusted checkpoint, once the service's
 * per-chain consistency proofs from the trusted checkpoint to the latest hold.
 */
async function trustedEdges(base: string, from: PartitionedCheckpoint, to: PartitionedCheckpoint): Promise<TreeFrontier[]> {
  const consistency = await getJson(base, `${PATHS.auditConsistency}?first=${from.tree_size}&second=${to.tree_size}`) as { first?: unknown; second?: unknown; chains?: unknown };
  if (consistency.first !== from.tree_size || consistency.second !== to.tree_size || !Array.isArray(consistency.chains)) refuse('the consistency proof is for other sizes');
  const proofs = consistency.chains as Array<{ chain?: unknown; first?: unknown; second?: unknown; proof?: unknown }>;
  return Promise.all(from.chains.map(async (head) => {
    const next = to.chains[head.chain];
    const proof = proofs[head.chain];
    if (proof?.chain !== head.chain || proof.first !== head.tree_size || proof.second !== next.tree_size || !Array.isArray(proof.proof)) {
      refuse(`the consistency proof of chain ${head.chain} is for other sizes`);
    }
    if (head.tree_size === 0) return TreeFrontier.empty();
    const last = await getJson(base, `${PATHS.auditProof}/${head.tree_size}?chain=${head.chain}&tree_size=${from.tree_size}`) as { audit_path?: unknown };
    return trustedEdge(head, next, proof.proof as string[], last.audit_path, `chain ${head.chain}`);
  }));
}
