// The audit-log contract shared by the file-backed and Redis-backed chains.

/** What the evaluation pipeline hands over; the log adds seq, ts and the links. */
export interface AuditEntry {
  wallet: string;
  /**
   * `audit`: a record the log writes about itself (a loss an operator accepted, ARCHITECTURE.md "Damage is not a torn tail");
   * `config`: a change of a wallet's limits (ARCHITECTURE.md "Fleet limits").
   */
  channel: 'rest' | 'free' | 'demo' | 'mcp' | 'x402' | 'a2a' | 'audit' | 'config';
  /** The validated request as the caller sent it (JSON values only). */
  request: Record<string, unknown>;
  decision: 'allow' | 'warn' | 'deny' | 'error';
  risk_score: number;
  reasons: string[];
  tier: number;
  price_usd: number;
  price_source: string;
  /** Paid verdicts only (channel `x402`): the payment that bought this verdict. */
  payment?: AuditPayment;
  /**
   * When the verdict was judged (its facts' time, ms): the record's `ts`, which format 3 facts take their time from
   * (ARCHITECTURE.md "Recorded facts"). Absent: the log's clock when the group is sealed.
   */
  ts?: number;
  /**
   * The facts the verdict was judged on, already in their canonical text: the store keeps the
   * text beside the record and the record carries `facts_hash` (ARCHITECTURE.md "Recorded facts").
   */
  facts?: StoredFacts;
}

export interface StoredFacts {
  text: string;
  /** SHA-256 of `text`, lower-case hex. */
  hash: string;
  /**
   * The shared documents `text` names by hash (`uses`), each before any document that names it: the store
   * keeps each once beside the facts of the records that use it (ARCHITECTURE.md "Recorded facts").
   */
  shared?: readonly StoredFacts[];
}

/**
 * The EIP-3009 authorization that paid for a verdict and the transfer that settled it, so an
 * auditor can tie the record to one on-chain transfer (`AuthorizationUsed(payer, nonce)`).
 */
export interface AuditPayment {
  payer: string;
  /** The authorization nonce, 0x and 64 hex digits. */
  nonce: string;
  transaction: string;
  network: string;
  asset: string;
  /** Base units. */
  amount: string;
  pay_to: string;
}

/**
 * A written record as it is listed: exactly the fields ARCHITECTURE.md "Audit record" names, plus `hash`, which is the
 * hex SHA-256 of the RFC 8785 canonical JSON of every other stored field. A format 3 record stores its outcome by
 * `outcome_hash`; its listing gives `reasons`, `price_usd` and `price_source` resolved beside it, outside the hashed bytes.
 */
export interface AuditRecord extends Omit<AuditEntry, 'facts' | 'ts'> {
  /** 3 for records that name their facts and their outcome, 2 for records written before that named only their facts; absent on format 1. */
  format?: 2 | 3;
  /** SHA-256 of the canonical JSON of the facts kept beside the record (formats 2 and 3). */
  facts_hash?: string;
  /** SHA-256 of the outcome document kept beside the record (format 3, outcome.ts). */
  outcome_hash?: string;
  seq: number;
  /** Milliseconds since the Unix epoch when the record was sealed. */
  ts: number;
  /** Hash of the previous record in the global chain; 64 zeros for seq 1. */
  prev_hash: string;
  /** Hash of this wallet's previous record; 64 zeros for its first. */
  wallet_prev_hash: string;
  hash: string;
  /**
   * On a partitioned log only (AUDIT_PARTITIONS > 1): the chain that holds the record, given beside
   * `hash` and, like it, not part of the hashed bytes: it is `partitionOf(wallet, K)`, so the wallet in
   * the bytes already binds it (ARCHITECTURE.md "Partitioned audit chains").
   */
  chain?: number;
}

export interface AuditHead {
  /** Highest written seq; 0 for an empty log. */
  seq: number;
  /** Hash of that record; 64 zeros for an empty log. */
  hash: string;
}

export interface AuditLog {
  /**
   * Told of each record this instance wrote, in seq order, once it is written and before its
   * append resolves (the proof tree follows the chain with it, ARCHITECTURE.md "Checkpoints and proofs").
   */
  onAppended?: ((record: Pick<AuditRecord, 'seq' | 'hash'>) => void) | null;
  /**
   * Seals and durably writes the entry, resolving only after the write (and the
   * fsync the policy asks for) has finished, so a verdict is never sent for a
   * record that is not on disk. Concurrent appends are grouped into one write.
   */
  append(entry: AuditEntry): Promise<AuditRecord>;
  head(): Promise<AuditHead>;
  /** Newest first, at most `limit`. */
  listGlobal(limit: number): Promise<AuditRecord[]>;
  /** Newest first, at most `limit`, this wallet only (address compared lower-case). */
  listWallet(wallet: string, limit: number): Promise<AuditRecord[]>;
  /**
   * Null when an append can be taken now; otherwise a short reason a client may see (the log is
   * failing, the file is not the one this process writes, its disk is full, Redis is not connected).
   * Synchronous and cheap: callable per request; the paid evaluation asks before it settles, so
   * nothing is charged for a verdict the log cannot take. With a wallet, whether that wallet's record
   * can be taken: a partitioned log answers for the wallet's chain alone, and without a wallet only
   * when no chain can take a record (ARCHITECTURE.md "Partitioned audit chains").
   */
  readiness(wallet?: string): string | null;
  /** Flushes pending writes and releases files or connections. */
  close(): Promise<void>;
}

export const ZERO_HASH = '0'.repeat(64);

/** Both stores expose their exact stored bytes, so verification hashes bytes, never re-serializes. */
export interface AuditLineSource {
  /**
   * The stored lines for seq `fromSeq` up to `fromSeq + count - 1` (fewer near the
   * head), oldest first, each `<64 hex hash> <canonical JSON>` without a newline.
   */
  readLines(fromSeq: number, count: number): Promise<Buffer[]>;
}

/** Both stores also hand one wallet's chain to verification as stored bytes. */
export interface AuditWalletLineSource {
  /**
   * The wallet's newest `count` stored lines (address compared lower-case), oldest
   * first; null where the store's index names a record it cannot produce.
   */
  readWalletLines(wallet: string, count: number): Promise<Array<Buffer | null>>;
}

/** One record's facts as stored: the record's seq, the facts' hash (the record's `facts_hash`) and their canonical JSON. */
export interface FactsLine {
  seq: number;
  hash: string;
  text: string;
}

/** A facts line as the facts export sends it and the file backend stores it: `<seq> <hash> <json>` and a newline. */
export function factsLineText(line: FactsLine): string {
  return `${line.seq} ${line.hash} ${line.text}\n`;
}

/** `<seq> <hash> <json>` (without its newline); null for anything else. */
export function parseFactsLine(text: string): FactsLine | null {
  const match = /^(\d{1,16}) ([0-9a-f]{64}) (\{.*\})$/.exec(text);
  return match ? { seq: Number(match[1]), hash: match[2], text: match[3] } : null;
}

/** Both stores hand the facts behind a range of records to replay and the facts export. */
export interface AuditFactsSource {
  /**
   * For records `fromSeq` to `fromSeq + count - 1` that name facts, those facts, in seq order; a record whose facts are
   * missing is left out. The shared documents they name (`uses`, each once), and the outcome document a format 3
   * record names (`outcome_hash`), come before the first line that names them, listed under the seq they are kept at
   * (a file) or of that line (Redis).
   */
  readFacts(fromSeq: number, count: number): Promise<FactsLine[]>;
  /** Where the facts are kept, as verification's problems and a refused facts export name it (`facts.log`, a Redis key). */
  readonly factsLocation: string;
}

/** Counters both stores keep; `writes` counts group commits, not appends. */
export interface AuditLogStats {
  appends: number;
  writes: number;
  fsyncs: number;
  bytes: number;
  /** Redis only: batches re-sealed because another instance moved the head. */
  conflicts: number;
}

/** Rejection for appends after close(); the caller fails closed. */
export class AuditLogClosedError extends Error {
  override name = 'AuditLogClosedError';
  constructor() {
    super('audit log is closed');
  }
}

/** One stored record line and the facts kept for its seq (null when none were found), as replay reads them. */
export interface RecordWithFacts {
  seq: number;
  /** On a partitioned log, the chain `seq` counts in. */
  chain?: number;
  line: string;
  facts: FactsLine | null;
  /** The shared documents found beside it by hash (`uses`, facts-uses.ts), which its facts may name, and its outcome document (format 3). */
  shared?: ReadonlyMap<string, string>;
}

/** A run of stored records with their facts: a backend's own files, or a service's exports. */
export interface RecordsWithFacts {
  name: string;
  /** Records in the range when known (a service says its head), else null. */
  total: number | null;
  items: AsyncIterable<RecordWithFacts>;
}
