// Signed checkpoints of the audit tree: what they say, how they are signed, how a verifier checks one
// (ARCHITECTURE.md "Checkpoints and proofs").
import * as crypto from 'node:crypto';
import canonicalize from 'canonicalize';
import type { ProofFault } from './proof-check.js';
import { isSha256Hex } from '../record/sha256.js';

/**
 * The tree's size and root at one moment, with the record that ends it, signed. `tree_size`
 * equals `last_seq` (leaf i is seq i + 1); both are written so a reader needs no convention.
 */
export interface Checkpoint {
  tree_size: number;
  /** Lower-case hex. */
  root_hash: string;
  /** Milliseconds since the Unix epoch when it was signed. */
  timestamp: number;
  last_seq: number;
  last_hash: string;
  key_id: string;
  /** Ed25519 over the RFC 8785 canonical JSON of every other field, base64. */
  signature: string;
}

export type UnsignedCheckpoint = Omit<Checkpoint, 'signature'>;

/** The public half, as `/.well-known/audit-key.json` publishes it. */
export interface PublishedKey {
  alg: 'Ed25519';
  key_id: string;
  /** The raw 32-byte public key, base64. */
  public_key: string;
}

// A PKCS #8 Ed25519 key is this DER prefix followed by the 32-byte seed (RFC 8410 section 7).
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
// An SPKI Ed25519 key is this prefix followed by the 32 raw public-key bytes (RFC 8410 section 4).
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export class CheckpointSigner {
  readonly published: PublishedKey;
  private readonly privateKey: crypto.KeyObject;

  /** From a 32-byte Ed25519 seed. */
  constructor(seed: Uint8Array) {
    if (seed.length !== 32) throw new RangeError('an Ed25519 private key is a 32-byte seed');
    this.privateKey = crypto.createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
    const spki = crypto.createPublicKey(this.privateKey).export({ format: 'der', type: 'spki' });
    const raw = spki.subarray(SPKI_PREFIX.length);
    this.published = { alg: 'Ed25519', key_id: keyIdOf(raw), public_key: raw.toString('base64') };
  }

  sign(body: Omit<UnsignedCheckpoint, 'key_id'>): Checkpoint {
    const unsigned: UnsignedCheckpoint = { ...body, key_id: this.published.key_id };
    return { ...unsigned, signature: this.signBytes(signedBytes(unsigned)) };
  }

  /** Ed25519 over `bytes`, base64: the checkpoint of a partitioned log is signed through it (partition-root.ts). */
  signBytes(bytes: Uint8Array): string {
    return crypto.sign(null, bytes, this.privateKey).toString('base64');
  }
}

/** The first 16 hex digits of SHA-256 over the raw public key. */
export function keyIdOf(rawPublicKey: Uint8Array): string {
  return crypto.createHash('sha256').update(rawPublicKey).digest('hex').slice(0, 16);
}

/** The RFC 8785 bytes a checkpoint (of one chain or of a partitioned log) is signed and hashed over. */
export function signedBytes(unsigned: object): Buffer {
  const text = canonicalize(unsigned);
  if (text === undefined) throw new Error('a checkpoint has no JSON form');
  return Buffer.from(text, 'utf8');
}

/** What a checkpoint must look like before its signature is worth checking. */
export function shapeFault(value: unknown): ProofFault {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'the checkpoint is not an object';
  const c = value as Record<string, unknown>;
  const keys = Object.keys(c).sort().join(',');
  if (keys !== 'key_id,last_hash,last_seq,root_hash,signature,timestamp,tree_size') return `the checkpoint has fields ${keys}`;
  if (!Number.isSafeInteger(c.tree_size) || (c.tree_size as number) < 1) return 'tree_size is not a positive integer';
  if (c.last_seq !== c.tree_size) return 'last_seq differs from tree_size';
  if (!Number.isSafeInteger(c.timestamp)) return 'timestamp is not integer milliseconds';
  if (typeof c.root_hash !== 'string' || !isSha256Hex(c.root_hash)) return 'root_hash is not 64 lower-case hex digits';
  if (typeof c.last_hash !== 'string' || !isSha256Hex(c.last_hash)) return 'last_hash is not 64 lower-case hex digits';
  if (typeof c.signature !== 'string' || typeof c.key_id !== 'string') return 'signature and key_id must be strings';
  return null;
}

/** Checks shape, key and Ed25519 signature; null when the checkpoint was signed by `key` as it reads. */
export function checkCheckpoint(value: unknown, key: PublishedKey): ProofFault {
  const shape = shapeFault(value);
  if (shape) return shape;
  const { signature, ...unsigned } = value as Checkpoint;
  return signatureFault(unsigned, signature, key);
}

/** Null when `key` is the published Ed25519 key the checkpoint names and `signature` verifies over its unsigned body's bytes. */
export function signatureFault(unsigned: { key_id: string }, signature: string, key: PublishedKey): ProofFault {
  if (unsigned.key_id !== key.key_id) return `the checkpoint names key ${unsigned.key_id}, the published key is ${key.key_id}`;
  const publicKey = publicKeyOf(key);
  if (publicKey === null) return 'the published key is not an Ed25519 key with that key_id';
  const ok = crypto.verify(null, signedBytes(unsigned), publicKey, Buffer.from(signature, 'base64'));
  return ok ? null : 'the checkpoint signature does not verify with the published key';
}

/**
 * The key object of the last published key asked for: building it costs about three times a verification, and
 * checkpoints.log is checked line by line with one key at every start (src/audit/file/checkpoint-lines.ts).
 */
let lastKey: { key: PublishedKey; publicKey: crypto.KeyObject | null } | null = null;

function publicKeyOf(key: PublishedKey): crypto.KeyObject | null {
  if (lastKey?.key.public_key === key.public_key && lastKey.key.key_id === key.key_id && lastKey.key.alg === key.alg) return lastKey.publicKey;
  const raw = Buffer.from(key.public_key, 'base64');
  const valid = key.alg === 'Ed25519' && raw.length === 32 && keyIdOf(raw) === key.key_id;
  const publicKey = valid ? crypto.createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: 'der', type: 'spki' }) : null;
  lastKey = { key: { ...key }, publicKey };
  return publicKey;
}
