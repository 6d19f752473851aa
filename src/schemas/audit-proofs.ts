// Checkpoints and proofs of the audit tree, as the routes validate and publish them (ARCHITECTURE.md "Checkpoints and proofs").
import { Type } from '@sinclair/typebox';

const Hex64 = Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256, lower-case hex' });
const TreeSize = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });

export const Checkpoint = Type.Object({
  tree_size: Type.Integer({ minimum: 1, description: 'Leaves in the tree: the records with seq 1 to tree_size' }),
  root_hash: Hex64,
  timestamp: Type.Integer({ description: 'When it was signed, milliseconds since the Unix epoch' }),
  last_seq: Type.Integer({ minimum: 1, description: 'The seq of the last record in the tree (equal to tree_size)' }),
  last_hash: Hex64,
  key_id: Type.String({ description: 'The signing key, as /.well-known/audit-key.json names it' }),
  signature: Type.String({ description: 'Ed25519 over the RFC 8785 canonical JSON of every other field, base64' }),
}, { additionalProperties: false, description: 'A signed tree head of the global audit chain' });

export const AuditKey = Type.Object({
  alg: Type.Literal('Ed25519'),
  key_id: Type.String({ description: 'The first 16 hex digits of SHA-256 over the raw public key' }),
  public_key: Type.String({ description: 'The raw 32-byte public key, base64' }),
}, { additionalProperties: false, description: 'The key that signs audit checkpoints' });

export const InclusionProof = Type.Object({
  seq: Type.Integer({ minimum: 1 }),
  leaf_index: Type.Integer({ minimum: 0, description: 'seq - 1' }),
  leaf_hash: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256(0x00 || the 32 bytes of the record hash)' }),
  tree_size: Type.Integer({ minimum: 1 }),
  audit_path: Type.Array(Hex64, { description: 'Sibling hashes from the leaf up (RFC 9162 section 2.1.3)' }),
  checkpoint: Checkpoint,
}, { additionalProperties: false, description: 'Proof that one record is in the tree a signed checkpoint names' });

export const ConsistencyProof = Type.Object({
  first: Type.Integer({ minimum: 1, description: 'The earlier checkpoint\'s tree_size' }),
  second: Type.Integer({ minimum: 1, description: 'The later checkpoint\'s tree_size' }),
  proof: Type.Array(Hex64, { description: 'RFC 9162 section 2.1.4 consistency proof' }),
}, { additionalProperties: false, description: 'Proof that the later tree extends the earlier one' });

export const CheckpointQuery = Type.Object(
  { tree_size: Type.Optional({ ...TreeSize, description: 'A checkpoint of this size; the latest when absent' }) },
  { additionalProperties: true },
);
export const ProofPath = Type.Object({ seq: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });
export const ConsistencyQuery = Type.Object(
  { first: TreeSize, second: TreeSize },
  { additionalProperties: true },
);
