// Child process for crash tests: appends to a file audit log until it is killed, printing acknowledged counts.
// Usage: node audit-writer.js DIR WALLETS CLIENTS. CLIENTS loops each await their own appends, wallets taking
// turns, so a kill can land between a group's write to audit.log and its index commit.
import { FileAuditLog } from '../../src/audit/file/file-audit-log.js';
import { sampleEntry } from './audit-fixtures.js';

const writerWallet = (n: number) => `0x${(n + 1).toString(16).padStart(40, '0')}`;

const [dir, wallets, clients] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const log = await FileAuditLog.open(dir, { fsync: 'off' });
let next = 0;
let done = 0;
await Promise.all(Array.from({ length: clients }, async () => {
  for (;;) {
    const n = next++;
    await log.append(sampleEntry(writerWallet(n % wallets), n));
    if (++done % clients === 0) process.stdout.write(`${done}\n`);
  }
}));
