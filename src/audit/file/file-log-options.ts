// The file audit log's options and their defaults, resolved once when it opens.

export interface FileAuditLogOptions {
  /**
   * 'always': fdatasync each group commit before its appends resolve (a verdict is
   * never sent for a record a power cut could lose). 'batch': resolve after the
   * write, fdatasync at most every `batchMs`. 'off': leave flushing to the kernel.
   */
  fsync: 'always' | 'batch' | 'off';
  /** Interval for 'batch'; default 50 ms. */
  batchMs?: number;
  /** Most records in one write; default 4096. */
  maxBatch?: number;
  /** Clock for record `ts`, in ms; default Date.now (tests pin it). */
  now?: () => number;
  /** The first lost seq an operator accepts (AUDIT_ACCEPT_LOSS); loss markers take the lost seqs. Default: none. */
  acceptLoss?: number | null;
  /** Told when appends stop or resume (ARCHITECTURE.md "A log that heals"); default: nothing. */
  report?: (line: string) => void;
}

export function resolveOptions(options: FileAuditLogOptions): Required<FileAuditLogOptions> {
  const settings = {
    fsync: options.fsync, batchMs: options.batchMs ?? 50, maxBatch: options.maxBatch ?? 4096, now: options.now ?? Date.now,
    acceptLoss: options.acceptLoss ?? null, report: options.report ?? (() => undefined),
  };
  if (!['always', 'batch', 'off'].includes(settings.fsync)) throw new Error(`unknown fsync mode ${settings.fsync}`);
  return settings;
}
