// Every audit backend, in the order they are asked: the first whose `selected` takes the configuration is opened,
// and tools read a location with the first that knows it. A new backend is a sibling folder and one line here.
import type { AuditBackend } from './proof/audit-backend.js';
import { fileBackend } from './file/file-backend.js';
import { redisBackend } from './redis/redis-backend.js';

export const AUDIT_BACKENDS: readonly AuditBackend[] = [redisBackend, fileBackend];

/** The backend the configuration asks for; the file log, last in the list, takes any configuration. */
export function selectedBackend(config: Parameters<AuditBackend['selected']>[0]): AuditBackend {
  return AUDIT_BACKENDS.find((backend) => backend.selected(config)) ?? fileBackend;
}

/** The backend AUDIT_STORE=`name` opens: a new epoch reads the old settings' chains with it (ARCHITECTURE.md "DATA_DIR epoch"). */
export function backendNamed(name: string): AuditBackend {
  return AUDIT_BACKENDS.find((backend) => backend.name === name) ?? fileBackend;
}
