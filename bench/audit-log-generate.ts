// Writes a valid audit chain of N records straight into DIR/audit/audit.log, sealed by the log's own code, for start-up
// and listing measurements on a long log (docs/benchmarks.md). Usage: node dist/bench/audit-log-generate.js DIR N [WALLETS].
import { mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import { ZERO_HASH, type AuditHead } from '../src/audit/record/audit-log.js';
import { sealBatch } from '../src/audit/record/seal-batch.js';
import { sha256Hex } from '../src/audit/record/sha256.js';
import { benchEntry } from './audit-entry.js';

const BATCH = 4096;
const [dir, count, wallets] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4] ?? 10_000)];
if (!dir || !(count > 0) || !(wallets > 0)) throw new Error('usage: audit-log-generate DIR RECORDS [WALLETS]');
const wallet = (n: number) => `0x${(n + 1).toString(16).padStart(40, '0')}`;

await mkdir(join(dir, 'audit'), { recursive: true });
const fh = await open(join(dir, 'audit', 'audit.log'), 'wx');
const walletHeads = new Map<string, string>();
let head: AuditHead = { seq: 0, hash: ZERO_HASH };
const began = performance.now();
for (let n = 0; n < count; n += BATCH) {
  // No facts: the records name none, so no facts.log line is owed.
  const entries = Array.from({ length: Math.min(BATCH, count - n) }, (_, i) => ({ ...benchEntry(wallet((n + i) % wallets), n + i), facts: undefined }));
  const batch = sealBatch(entries, head, (address) => walletHeads.get(address), sha256Hex, Date.now());
  for (const [address, hash] of batch.walletHeads) walletHeads.set(address, hash);
  head = batch.head;
  await fh.write(Buffer.concat(batch.sealed.map((sealed) => sealed.line)));
  if ((n / BATCH) % 250 === 0) process.stdout.write(`${n + entries.length} records, ${((performance.now() - began) / 1000).toFixed(0)} s\n`);
}
await fh.datasync();
await fh.close();
console.log(`${count} records over ${wallets} wallets in ${((performance.now() - began) / 1000).toFixed(1)} s; head ${head.seq} ${head.hash}`);
