// A move to other audit settings links the new chains to the old: before the backend opens, the old chains' ends are
// read with the old settings (and a shared Redis's own note of its layout is checked); once it is open, each new chain
// takes a handover record naming them (ARCHITECTURE.md "DATA_DIR epoch").
import type { Config } from '../config.js';
import { backendNamed, selectedBackend } from '../audit/backends.js';
import { handoverEntries, type HandoverFrom } from '../audit/chain-handover.js';
import type { ChainLayout, OldChainEnds } from '../audit/proof/audit-backend.js';
import type { AuditLog } from '../audit/record/audit-log.js';
import { DataDirMismatch, saveEpoch, type DataDirEpoch } from './data-dir-epoch.js';

/** What this start still owes the chains: a handover record, a layout note for a shared store, or both. */
export interface HandoverPlan {
  epoch: DataDirEpoch;
  handover: { from: HandoverFrom; old: OldChainEnds | { unread: string } } | null;
  layout: ChainLayout | null;
}

/**
 * Refuses a start whose chain count differs from the one the shared store holds, unless the operator names its epoch,
 * and one whose old chains cannot be read; writes nothing until both are settled.
 */
export async function planHandover(config: Readonly<Config>, settled: DataDirEpoch): Promise<HandoverPlan> {
  let epoch = settled;
  let layout: ChainLayout | null = null;
  const shared = selectedBackend(config).layout;
  if (shared) {
    const unreadable = (error: Error) => {
      throw new Error(`could not read the audit chain layout the shared store keeps: ${error.message}`, { cause: error });
    };
    // A store with no note yet is claimed now, before any chain is written: of two first starts racing with
    // different counts the first writer wins and the other is refused below, having written nothing (issue 39).
    const held = await shared.read(config).then((read) => read ?? shared.claim(config, { partitions: config.auditPartitions, epoch: epoch.id })).catch(unreadable);
    if (held.partitions !== config.auditPartitions) {
      if (config.dataDirNewEpoch !== held.epoch) throw new DataDirMismatch(layoutRefusal(held, config.auditPartitions));
      layout = { partitions: config.auditPartitions, epoch: epoch.id };
      // A fresh DATA_DIR moving the shared chains: its new chains continue the ones the store held.
      if (!(epoch.handover_pending && epoch.previous?.id === held.epoch)) {
        const previous = { id: held.epoch, audit_store: 'redis' as const, audit_partitions: held.partitions, store: epoch.store, audit_seq: null };
        epoch = { ...epoch, previous, handover_pending: true };
      }
    }
  }
  if (!epoch.handover_pending || epoch.previous === null) return { epoch, handover: null, layout };
  const { previous } = epoch;
  const from: HandoverFrom = { epoch: previous.id, audit_store: previous.audit_store, audit_partitions: previous.audit_partitions };
  const oldConfig = { ...config, auditStore: previous.audit_store, auditPartitions: previous.audit_partitions };
  let old: OldChainEnds | { unread: string };
  try {
    old = await backendNamed(previous.audit_store).chainEnds(oldConfig);
  } catch (error) {
    const why = (error as Error).message;
    if (config.dataDirOldChainGone !== previous.id) throw new DataDirMismatch(unreadRefusal(from, why));
    old = { unread: why };
  }
  if (epoch !== settled) await saveEpoch(config.dataDir, epoch);
  return { epoch, handover: { from, old }, layout };
}

/** Writes the handover records through the log's own append (one per chain), then the layout note, then clears the epoch's mark. */
export async function completeHandover(
  config: Readonly<Config>, plan: HandoverPlan, audit: AuditLog, now: () => number, say: (line: string) => void,
): Promise<DataDirEpoch> {
  if (plan.handover) {
    const { from, old } = plan.handover;
    for (const entry of handoverEntries(from, plan.epoch.id, config.auditPartitions, old, now())) {
      const record = await audit.append(entry);
      say(`audit: ${entry.reasons[0]}; recorded as seq ${record.seq}${record.chain === undefined ? '' : ` of chain ${record.chain}`} (${record.hash})`);
    }
  }
  if (plan.layout) await selectedBackend(config).layout?.write(config, plan.layout);
  if (!plan.epoch.handover_pending) return plan.epoch;
  const epoch = { ...plan.epoch, handover_pending: false };
  await saveEpoch(config.dataDir, epoch);
  return epoch;
}

function layoutRefusal(held: ChainLayout, asked: number): string {
  return `the shared Redis holds audit chains written with AUDIT_PARTITIONS=${held.partitions} (epoch ${held.epoch}), and this start asks for ` +
    `AUDIT_PARTITIONS=${asked}: new chains would start at seq 1 beside them. Start with AUDIT_PARTITIONS=${held.partitions}; to move the ` +
    `shared chains on purpose (each new chain's first record then names where the old ones ended), set DATA_DIR_NEW_EPOCH=${held.epoch}.`;
}

function unreadRefusal(from: HandoverFrom, why: string): string {
  return `the audit chains of epoch ${from.epoch} (AUDIT_STORE=${from.audit_store} AUDIT_PARTITIONS=${from.audit_partitions}) cannot be read: ${why}. ` +
    'A new chain begins with a record of where the old one ended, and none is started while that is unknown. Make the old chain ' +
    `readable to this start (its Redis reachable at the configured URL, DATA_DIR/audit in place) and start again; if it is gone for good, ` +
    `set DATA_DIR_OLD_CHAIN_GONE=${from.epoch}: the new chain's first record then says its link to the old one is unknown.`;
}
