// Walks scanned chunks in stored order and judges each record: the cheap main-thread half of verification.
import { ZERO_HASH } from '../record/audit-log.js';
import { HASH_OK, LINK_OK, SHAPE_OK, type ChunkScan, type LinkField } from './chunk-scan.js';

export type ProblemKind =
  | 'unparseable' | 'hash_mismatch' | 'seq_gap' | 'reorder' | 'broken_link' | 'truncated' | 'head_mismatch'
  | 'facts_missing' | 'facts_mismatch' | 'outcome_missing' | 'outcome_mismatch';

/** One failing record; `hash` is its stored hash (null when it has none, or for a truncated tail). */
export interface ChainProblem {
  seq: number;
  hash: string | null;
  problem: ProblemKind;
  /** Facts and outcome problems only (facts-check.ts): where the record's facts are kept, e.g. `facts.log`. */
  location?: string;
}

/** What the first record of a range must link to. */
export interface ChainAnchor {
  /** Seq of the record before the range; 0 at the start of a chain. */
  seq: number;
  /** Hashes the first link may name (the predecessor's stored and recomputed hash); empty: not checked. */
  hashes: string[];
}

export const GENESIS: ChainAnchor = Object.freeze({ seq: 0, hashes: [ZERO_HASH] }) as ChainAnchor;

/** A scanned chunk back from the pool, with its bytes (for the stored hash of a failing line). */
export interface ScannedChunk extends ChunkScan {
  bytes: Uint8Array;
}

export interface VerifyReport {
  /** Records checked. */
  total: number;
  /** Records that fail a check, plus records the head promises that are missing from the tail. */
  tampered: number;
  healthy: boolean;
  /** Seq of the first record, in stored order, whose hash, seq or link fails; null when healthy. */
  firstBrokenSeq: number | null;
  /** The first problems in stored order (at most `maxProblems`). */
  problems: ChainProblem[];
}

interface Found extends ChainProblem {
  /** The seq judged just before this record: a gap whose missing seqs turn up elsewhere is a reorder. */
  after: number;
}

/** A record the chain must reach: its seq, and its hash when known (the store's head, or a verdict's receipt). */
export interface ChainEnd {
  seq: number;
  hash?: string;
}

export const DEFAULT_MAX_PROBLEMS = 100;

/**
 * Global form (`prev_hash`): seqs run up by one and each record links to the one
 * stored before it. Wallet form (`wallet_prev_hash`): seqs only increase. A record
 * whose bytes fail stands for the seq the chain expected, so one damaged record
 * does not make its neighbours fail too.
 */
export class ChainWalker {
  private prevSeq: number;
  private prevHashes: string[];
  private highest: number;
  /** Stored hash of the intact record at `end.seq`, once walked. */
  private endHash: string | null = null;
  private total = 0;
  private tampered = 0;
  private readonly found: Found[] = [];

  /**
   * `end` (global form only): the chain must reach this seq, and the record there
   * must carry `end.hash` when given; a cut tail leaves no other trace.
   */
  constructor(
    private readonly field: LinkField,
    anchor: ChainAnchor,
    private readonly end?: ChainEnd,
    private readonly maxProblems = DEFAULT_MAX_PROBLEMS,
  ) {
    this.prevSeq = anchor.seq;
    this.highest = anchor.seq;
    this.prevHashes = anchor.hashes;
  }

  get checked(): number {
    return this.total;
  }

  add(chunk: ScannedChunk): void {
    for (let i = 0; i < chunk.count; i++) {
      const linked = i > 0 ? (chunk.flags[i] & LINK_OK) !== 0
        : this.prevHashes.length === 0 || (chunk.firstLink !== null && this.prevHashes.includes(chunk.firstLink));
      this.judge(chunk, i, linked);
    }
    if (chunk.count > 0) this.prevHashes = [chunk.lastStored, chunk.lastComputed].filter((hash): hash is string => hash !== null);
  }

  private judge(chunk: ScannedChunk, i: number, linked: boolean): void {
    const flags = chunk.flags[i];
    const seq = chunk.seqs[i];
    const global = this.field === 'prev_hash';
    const expected = this.prevSeq + 1;
    const after = this.prevSeq;
    let problem: ProblemKind | null = null;
    let judged = seq;
    if ((flags & SHAPE_OK) === 0 || (flags & HASH_OK) === 0) {
      problem = (flags & SHAPE_OK) === 0 ? 'unparseable' : 'hash_mismatch';
      // Its own seq is not to be trusted: it stands for the one expected here.
      judged = global || seq <= after ? expected : seq;
      if (global) this.prevSeq = expected;
    } else {
      if (global ? seq !== expected : seq <= after) problem = seq > expected ? 'seq_gap' : 'reorder';
      else if (!linked) problem = 'broken_link';
      this.prevSeq = seq;
    }
    this.total++;
    this.highest = Math.max(this.highest, judged);
    if (problem === null) {
      if (judged === this.end?.seq) this.endHash = storedHash(chunk, i);
      return;
    }
    this.tampered++;
    this.record({ seq: judged, hash: storedHash(chunk, i), problem, after });
  }

  finish(): VerifyReport {
    if (this.end && this.field === 'prev_hash') this.checkEnd(this.end);
    const problems = this.found.map(({ after, ...problem }) =>
      problem.problem === 'seq_gap' && this.found.some((other) => other.seq > after && other.seq < problem.seq)
        ? { ...problem, problem: 'reorder' as const }
        : problem);
    return {
      total: this.total,
      tampered: this.tampered,
      healthy: this.tampered === 0,
      firstBrokenSeq: problems[0]?.seq ?? null,
      problems,
    };
  }

  private checkEnd(end: ChainEnd): void {
    if (this.highest < end.seq) {
      this.tampered += end.seq - this.highest;
      this.record({ seq: this.highest + 1, hash: null, problem: 'truncated', after: this.highest });
    } else if (end.hash !== undefined && this.endHash !== null && this.endHash !== end.hash) {
      this.tampered++;
      this.record({ seq: end.seq, hash: this.endHash, problem: 'head_mismatch', after: end.seq - 1 });
    }
  }

  private record(found: Found): void {
    if (this.found.length < this.maxProblems) this.found.push(found);
  }
}

/** The 64 hash characters a line starts with, or null when the line is shorter. */
function storedHash(chunk: ScannedChunk, i: number): string | null {
  const start = chunk.starts[i];
  let end = i + 1 < chunk.count ? chunk.starts[i + 1] - 1 : chunk.bytes.length;
  if (i + 1 === chunk.count && chunk.bytes[end - 1] === 0x0a) end--;
  return end - start >= 64 ? Buffer.from(chunk.bytes.buffer, chunk.bytes.byteOffset + start, 64).toString('latin1') : null;
}
