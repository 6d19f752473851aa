// `audit:verify --prove SEQ --chain P` against a service whose log is partitioned: the record's bytes from its chain's
// export, its path to the chain's root, the chain's path to the signed root, the signature; nothing the service says is
// trusted (ARCHITECTURE.md "Partitioned audit chains").
import { PATHS } from '../../catalogue/published-facts.js';
import { leafHash } from './merkle.js';
import { checkPartitionedCheckpoint, checkPartitionedInclusion, type PartitionedCheckpoint, type PartitionedInclusionProof } from './partition-root.js';
import { checkLines, getJson, publishedKey, refuse } from './remote-check.js';
import { ExportLines } from './service-reads.js';

export interface ProvenChainRecord {
  chain: number;
  seq: number;
  hash: string;
  checkpoint: PartitionedCheckpoint;
}

export async function provePartitionedRecord(base: string, seq: number, chain: number): Promise<ProvenChainRecord> {
  const trusted = await publishedKey(base);
  const proof = await getJson(base, `${PATHS.auditProof}/${seq}?chain=${chain}`) as PartitionedInclusionProof;
  const fault = checkPartitionedCheckpoint(proof.checkpoint, trusted);
  if (fault) refuse(`the checkpoint: ${fault}`);
  if (proof.chain !== chain || proof.seq !== seq || proof.leaf_index !== seq - 1) refuse(`the proof is for record ${String(proof.seq)} of chain ${String(proof.chain)}, not ${seq} of chain ${chain}`);
  let hash = '';
  await checkLines(new ExportLines(base, seq, seq, chain), seq, seq, null, (recordHash) => {
    hash = Buffer.from(recordHash).toString('hex');
  });
  const leaf = leafHash(hash).toString('hex');
  if (proof.leaf_hash !== leaf) refuse(`the proof's leaf is not record ${seq}'s of chain ${chain} (its leaf hash is ${leaf})`);
  if (!Array.isArray(proof.audit_path) || !Array.isArray(proof.chain_path)) refuse('the proof has no audit_path or chain_path');
  const inclusion = checkPartitionedInclusion(leaf, seq, proof, proof.checkpoint);
  if (inclusion) refuse(`inclusion: ${inclusion}`);
  return { chain, seq, hash, checkpoint: proof.checkpoint };
}
