// The file audit backend: audit.log, facts.log and checkpoints.log under DATA_DIR/audit, as one AuditBackend.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../../config.js';
import { ALWAYS_USABLE } from '../../store/store-state.js';
import type { AuditBackend, BackendContext, OpenAuditBackend } from '../proof/audit-backend.js';
import { fileChainSource, fileRecordsWithFacts } from './file-chain-reads.js';
import { fileChainEnds } from './file-chain-end.js';
import { FileCheckpointStore } from './file-checkpoints.js';
import { FileAuditLog } from './file-audit-log.js';

export const fileBackend: AuditBackend = {
  name: 'file',
  // The default: whatever no other backend was asked for (AUDIT_STORE=redis without REDIS_URL included).
  selected: () => true,
  open: openFileBackend,
  chainSource: fileChainSource,
  recordsWithFacts: fileRecordsWithFacts,
  chainEnds: fileChainEnds,
};

async function openFileBackend(config: Readonly<Config>, context: BackendContext): Promise<OpenAuditBackend> {
  const dir = join(config.dataDir, 'audit');
  await mkdir(dir, { recursive: true });
  const log = await FileAuditLog.open(dir, { fsync: config.auditFsync, now: context.now, acceptLoss: config.auditAcceptLoss, report: context.log });
  reportOpen(log, config.auditAcceptLoss, context.log);
  return {
    log,
    openCheckpoints: (key) => FileCheckpointStore.open(dir, key, log.checkpointsMarks, { report: context.log, now: context.now }),
    storeState: ALWAYS_USABLE,
    status: { kind: 'file', fsync: config.auditFsync, watch: () => null },
    threads: () => ({}),
  };
}

/** What the operator must know of the open: a loss accepted, a torn tail cut, damage inside, an index rebuilt. */
function reportOpen(log: FileAuditLog, acceptLoss: number | null, say: (line: string) => void): void {
  const report = log.openReport;
  if (report.acceptedLoss) {
    const { first_seq: first, last_seq: last } = report.acceptedLoss;
    say(`audit: records ${first}..${last} were lost; the loss was accepted (AUDIT_ACCEPT_LOSS=${first}) and a loss marker now holds each of those seqs`);
  } else if (acceptLoss !== null) {
    say(`audit: AUDIT_ACCEPT_LOSS=${acceptLoss} is set but no loss was found; it can be removed`);
  }
  if (report.truncatedBytes > 0) {
    say(`audit: cut a torn last record (${report.truncatedBytes} bytes: ${report.reason}); ${report.records} records intact`);
  }
  if (report.suspectLines > 0) say(`audit: ${report.suspectLines} damaged records inside the log; verify the chain`);
  if (log.indexReport.rebuilt && report.records > 0) {
    say(`audit: rebuilt the index from the whole log (${report.records} records in ${report.scanMs} ms): it was missing, could not be opened, or did not match the log`);
  }
}
