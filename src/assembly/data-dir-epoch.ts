// What a DATA_DIR was written with, kept in DATA_DIR/epoch.json and in the embedded store, so a start whose
// settings or whose store do not match the data already there is refused (ARCHITECTURE.md "DATA_DIR epoch").
import { randomUUID } from 'node:crypto';
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config.js';
import type { CacheStore } from '../store/cache-store.js';
import type { StoreState } from '../store/store-state.js';
import { writeAtomically } from './atomic-file.js';

export const EPOCH_FILE_NAME = 'epoch.json';
/** The store's copy of the epoch: its id and the audit head seq last seen beside it. */
export const STORE_EPOCH_KEY = 'tg:data-dir:epoch';

/** The settings that decide where the audit chain and the store's data live. */
export interface DataSettings {
  audit_store: 'file' | 'redis';
  audit_partitions: number;
  store: 'lmdb' | 'memory' | 'redis';
}

export interface DataDirEpoch extends DataSettings {
  id: string;
  created_at: string;
  /** Tokens issued before this (ms) are refused: a new epoch may have lost the revocations. */
  tokens_not_before_ms: number | null;
  /** The embedded store carries this epoch: from then on a store without it has lost its data. */
  store_marked: boolean;
  /** The epoch this one replaced, as it was, and the audit head seq its store last saw. */
  previous: (DataSettings & { id: string; audit_seq: number | null }) | null;
  /** Set while the new chains still lack the handover record naming the previous epoch's chain ends (epoch-handover.ts). */
  handover_pending?: boolean;
}

interface StoreMark {
  id: string;
  audit_seq: number;
}

/** A start refused because the data in DATA_DIR does not match it; main prints the message and exits 1. */
export class DataDirMismatch extends Error {
  override name = 'DataDirMismatch';
}

export function settingsOf(config: Readonly<Config>): DataSettings {
  return { audit_store: config.auditStore, audit_partitions: config.auditPartitions, store: config.store };
}

export function describeSettings(settings: DataSettings): string {
  return `AUDIT_STORE=${settings.audit_store} AUDIT_PARTITIONS=${settings.audit_partitions} STORE=${settings.store}`;
}

export function sameSettings(a: DataSettings, b: DataSettings): boolean {
  return a.audit_store === b.audit_store && a.audit_partitions === b.audit_partitions && a.store === b.store;
}

/**
 * The settings an older DATA_DIR (no epoch.json yet) was written with, as far as its files show them:
 * a non-empty audit/audit.log is the file chain; redis-chain-head.json one Redis chain; redis-chain-head-<p>.json
 * K partitioned ones (the file chain wins when both are there); a store/ folder the embedded store.
 * What the files do not show is left out, and taken from this start.
 */
export async function inferSettings(dataDir: string): Promise<Partial<DataSettings>> {
  const names = await readdir(dataDir).catch(() => [] as string[]);
  const store: Partial<DataSettings> = names.includes('store') ? { store: 'lmdb' } : {};
  const log = await stat(join(dataDir, 'audit', 'audit.log')).catch(() => null);
  if (log && log.size > 0) return { ...store, audit_store: 'file', audit_partitions: 1 };
  const parts = names.map((name) => /^redis-chain-head-(\d+)\.json$/.exec(name)).filter((m) => m !== null).map((m) => Number(m[1]));
  if (parts.length > 0) return { ...store, audit_store: 'redis', audit_partitions: Math.max(...parts) + 1 };
  if (names.includes('redis-chain-head.json')) return { ...store, audit_store: 'redis', audit_partitions: 1 };
  return store;
}

/** The refusal for a start whose settings differ from the epoch's, naming both and the ways to move. */
export function settingsRefusal(dataDir: string, epoch: DataDirEpoch, asked: DataSettings): string {
  return `${dataDir} was written with ${describeSettings(epoch)} (epoch ${epoch.id}), and this start asks for ${describeSettings(asked)}: ` +
    'its audit records and stored state would not be found, and a new chain would give acknowledged seqs a second record. ' +
    'Start with the settings the data was written with, or give this one its own DATA_DIR; to start anew on this DATA_DIR on purpose ' +
    `(a new chain; the old one stays where it is, readable with the same settings, and is named in ${EPOCH_FILE_NAME}), ` +
    `set DATA_DIR_NEW_EPOCH=${epoch.id}. Tokens issued before are then refused.`;
}

/** The epoch a start runs in; `unsaved` when DATA_DIR had none and this start's is not written yet. */
export interface SettledEpoch {
  epoch: DataDirEpoch;
  unsaved: boolean;
}

/**
 * Reads DATA_DIR/epoch.json, adopting an older DATA_DIR once with the settings its files show, and judges this
 * start's settings against it. Runs before any audit backend is opened, so a refused start writes nothing: a move
 * is written only once `beforeMove` (which reads the old chains' ends, epoch-handover.ts) has not refused it.
 * A first epoch is only made here: the step that opens the audit backend writes it first, and waits for room on a
 * full disk (ARCHITECTURE.md "A full disk at start").
 */
export async function settleEpoch(
  config: Readonly<Config>, now: () => number, beforeMove: (next: DataDirEpoch) => Promise<void> = async () => undefined,
): Promise<SettledEpoch> {
  const file = join(config.dataDir, EPOCH_FILE_NAME);
  const asked = settingsOf(config);
  const epoch = await readEpoch(file);
  if (epoch === null) {
    const first = fresh({ ...asked, ...(await inferSettings(config.dataDir)) }, now(), null);
    // Adopted with other settings than this start's: kept as the files show them, then judged as a move.
    if (sameSettings(first, asked)) return { epoch: first, unsaved: true };
    await writeEpoch(file, first);
    return { epoch: await settleMove(config, first, asked, now, beforeMove), unsaved: false };
  }
  return { epoch: await settleMove(config, epoch, asked, now, beforeMove), unsaved: false };
}

/** The epoch a start with settings `asked` runs in on a DATA_DIR of `epoch`: the same, or a move DATA_DIR_NEW_EPOCH accepts. */
async function settleMove(
  config: Readonly<Config>, epoch: DataDirEpoch, asked: DataSettings, now: () => number, beforeMove: (next: DataDirEpoch) => Promise<void>,
): Promise<DataDirEpoch> {
  const file = join(config.dataDir, EPOCH_FILE_NAME);
  if (sameSettings(epoch, asked)) return epoch;
  if (config.dataDirNewEpoch !== epoch.id) throw new DataDirMismatch(settingsRefusal(config.dataDir, epoch, asked));
  const next = fresh(asked, now(), { ...pickSettings(epoch), id: epoch.id, audit_seq: null });
  next.tokens_not_before_ms = now();
  // Other settings, other chains: they begin with a record of where the old ones ended (epoch-handover.ts).
  next.handover_pending = true;
  await beforeMove(next);
  await writeEpoch(file, next);
  return next;
}

/**
 * The embedded store and the audit log know each other: the store keeps the epoch id and the audit head seq.
 * A store without the mark, once the epoch has marked one, has lost its data (an emptied data.mdb, a deleted
 * DATA_DIR/store): revocations and policies are gone. A mark ahead of the log means the log lost acknowledged
 * records. Either refuses the start unless DATA_DIR_NEW_EPOCH names the epoch; then a new epoch begins.
 */
export async function matchStore(
  config: Readonly<Config>, epoch: DataDirEpoch, store: CacheStore, auditHeadSeq: () => Promise<number>, now: () => number,
): Promise<DataDirEpoch> {
  // Only the embedded store lives in DATA_DIR; a Redis store is watched by the Redis audit chain's epoch.
  if (config.store !== 'lmdb') return epoch;
  const auditSeq = await auditHeadSeq();
  const mark = parseMark(await store.get(STORE_EPOCH_KEY));
  const problem = storeProblem(epoch, mark, auditSeq);
  let current = epoch;
  if (problem !== null) {
    if (config.dataDirNewEpoch !== epoch.id) {
      throw new DataDirMismatch(`${problem} Restore DATA_DIR/store and DATA_DIR/audit from one backup, or accept this on purpose with ` +
        `DATA_DIR_NEW_EPOCH=${epoch.id}: the service then starts a new epoch, and every token issued before it is refused.`);
    }
    current = fresh(settingsOf(config), now(), { ...pickSettings(epoch), id: epoch.id, audit_seq: mark?.audit_seq ?? null });
    current.tokens_not_before_ms = now();
  }
  await markStore(store, current.id, auditSeq);
  if (!current.store_marked || current !== epoch) {
    current = { ...current, store_marked: true };
    await writeEpoch(join(config.dataDir, EPOCH_FILE_NAME), current);
  }
  return current;
}

/** Mirrors the audit head seq into the store, at start and at a clean stop. */
export async function markStore(store: CacheStore, id: string, auditSeq: number): Promise<void> {
  await store.set(STORE_EPOCH_KEY, JSON.stringify({ id, audit_seq: auditSeq } satisfies StoreMark), 0);
}

/** What is wrong between the epoch, the store's mark and the audit head; null when they agree. */
export function storeProblem(epoch: DataDirEpoch, mark: StoreMark | null, auditSeq: number): string | null {
  if (mark === null) {
    if (!epoch.store_marked) return null;
    return `the store in DATA_DIR/store is empty, but it held epoch ${epoch.id} beside an audit chain now at seq ${auditSeq}: ` +
      'revoked tokens would work again and policies (blocked assets) would be gone.';
  }
  // A new epoch taken over a kept store (settings changed on purpose) re-marks the store it inherits.
  if (mark.id !== epoch.id && mark.id !== epoch.previous?.id) {
    return `the store in DATA_DIR/store belongs to epoch ${mark.id}, not to this DATA_DIR's epoch ${epoch.id} (${EPOCH_FILE_NAME}): it was copied from elsewhere or the epoch file was replaced.`;
  }
  if (mark.id === epoch.id && mark.audit_seq > auditSeq) {
    return `the store saw the audit chain at seq ${mark.audit_seq}, but the audit log's head is seq ${auditSeq}: acknowledged audit records are gone.`;
  }
  return null;
}

/** The backend's store state with the epoch's token cut-off added: a new epoch refuses tokens issued before it. */
export function withEpochTokens(state: StoreState, epoch: () => DataDirEpoch): StoreState {
  return {
    problem: () => state.problem(),
    tokensNotBeforeMs: () => Math.max(state.tokensNotBeforeMs() ?? 0, epoch().tokens_not_before_ms ?? 0) || null,
  };
}

function fresh(settings: DataSettings, nowMs: number, previous: DataDirEpoch['previous']): DataDirEpoch {
  return { id: randomUUID(), created_at: new Date(nowMs).toISOString(), ...pickSettings(settings), tokens_not_before_ms: null, store_marked: false, previous };
}

function pickSettings(settings: DataSettings): DataSettings {
  return { audit_store: settings.audit_store, audit_partitions: settings.audit_partitions, store: settings.store };
}

function parseMark(text: string | null): StoreMark | null {
  if (text === null) return null;
  const value = JSON.parse(text) as Partial<StoreMark>;
  return { id: String(value.id), audit_seq: Number(value.audit_seq ?? 0) };
}

async function readEpoch(file: string): Promise<DataDirEpoch | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    const epoch = JSON.parse(text) as DataDirEpoch;
    if (typeof epoch.id !== 'string' || typeof epoch.audit_store !== 'string') throw new Error('no id or settings');
    return epoch;
  } catch (error) {
    throw new DataDirMismatch(`${file} is unreadable (${(error as Error).message}): it says which settings this DATA_DIR was written with. ` +
      'Restore it from a backup; removing it makes the next start adopt the DATA_DIR again from its files.');
  }
}

/** Writes DATA_DIR/epoch.json as `epoch` (temp file, fsync, rename). */
export function saveEpoch(dataDir: string, epoch: DataDirEpoch): Promise<void> {
  return writeEpoch(join(dataDir, EPOCH_FILE_NAME), epoch);
}

/** Temp file, fsync, rename: a crash or a full disk leaves the old epoch or the new one, never half of one. */
function writeEpoch(file: string, epoch: DataDirEpoch): Promise<void> {
  return writeAtomically(file, `${JSON.stringify(epoch, null, 2)}\n`, 0o644);
}
