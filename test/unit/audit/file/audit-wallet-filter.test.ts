// The wallet filter: never "new" for a wallet the log holds (after appends, a reopen, a rebuild), and a full one still links every chain.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ZERO_HASH } from '../../../../src/audit/record/audit-log.js';
import { walletKey } from '../../../../src/audit/file/audit-index.js';
import { FileAuditLog, type FileAuditLogOptions } from '../../../../src/audit/file/file-audit-log.js';
import { INDEX_FILE_NAME } from '../../../../src/audit/file/record-index.js';
import { WalletFilter } from '../../../../src/audit/file/wallet-filter.js';
import { OVERFLOW_FILE_NAME, TABLE_FILE_NAME } from '../../../../src/audit/file/wallet-table.js';
import { sampleEntry } from '../../../support/audit-fixtures.js';
import { useTempDirs } from '../../../support/temp-dirs.js';

const tempDir = useTempDirs('audit-filter-test-');

const wallet = (n: number) => `0x${(n + 1).toString(16).padStart(40, '0')}`;
/** The log's filter, which the log keeps to itself. */
const filterOf = (log: FileAuditLog) => (log as unknown as { filter: WalletFilter }).filter;

/** Appends one record for each of wallets first .. first + count - 1, 100 at a time. */
async function appendWallets(log: FileAuditLog, first: number, count: number): Promise<void> {
  for (let n = first; n < first + count; n += 100) {
    const burst = Array.from({ length: Math.min(100, first + count - n) }, (_, i) => log.append(sampleEntry(wallet(n + i), n + i)));
    await Promise.all(burst);
  }
}

function assertHolds(log: FileAuditLog, count: number): void {
  for (let n = 0; n < count; n++) assert.ok(filterOf(log).mightHold(walletKey(wallet(n))), `wallet ${n} missing from the filter`);
}

/** Every wallet's records link to its previous one, its first to the zero hash, read from the file independently of src/. */
function assertWalletChains(dir: string): number {
  const text = readFileSync(join(dir, 'audit.log'), 'utf8');
  const last = new Map<string, string>();
  const lines = text.split('\n').slice(0, -1);
  for (const line of lines) {
    const record = JSON.parse(line.slice(65)) as { wallet: string; wallet_prev_hash: string };
    assert.equal(record.wallet_prev_hash, last.get(record.wallet) ?? ZERO_HASH, `wallet ${record.wallet}`);
    last.set(record.wallet, line.slice(0, 64));
  }
  return lines.length;
}

describe('WalletFilter', () => {
  it('holds every key added, even far past its size', () => {
    const filter = WalletFilter.empty(64);
    const keys = Array.from({ length: 5000 }, () => randomBytes(16));
    for (const key of keys) filter.add(key);
    for (const key of keys) assert.ok(filter.mightHold(key));
  });

  it('says "new" for most keys when it holds few, and reads keys inside a larger buffer', () => {
    const filter = WalletFilter.empty(1 << 16);
    const slot = Buffer.concat([randomBytes(40), randomBytes(16)]);
    filter.add(slot, 40);
    assert.ok(filter.mightHold(slot.subarray(40)));
    const unknown = Array.from({ length: 1000 }, () => randomBytes(16)).filter((key) => filter.mightHold(key));
    assert.ok(unknown.length < 10, `${unknown.length} false "maybe" of 1000`);
  });

  it('refuses a size that is not a power of two', () => {
    assert.throws(() => new WalletFilter(new Uint8Array(12)), /power of two/);
  });
});

describe('FileAuditLog wallet filter', () => {
  const options: FileAuditLogOptions = { fsync: 'off', recentWallets: 2, filterBytes: 1 << 16 };

  it('holds every wallet appended, after a reopen and after a rebuild of the index', async () => {
    const dir = await tempDir();
    let log = await FileAuditLog.open(dir, options);
    await appendWallets(log, 0, 1500);
    assertHolds(log, 1500);
    await log.close();
    log = await FileAuditLog.open(dir, options);
    assertHolds(log, 1500);
    await appendWallets(log, 1500, 500);
    await log.close();
    for (const name of [INDEX_FILE_NAME, TABLE_FILE_NAME, OVERFLOW_FILE_NAME]) rmSync(join(dir, name), { force: true });
    log = await FileAuditLog.open(dir, options);
    assert.equal(log.indexReport.rebuilt, true);
    assertHolds(log, 2000);
    await log.close();
    assert.equal(assertWalletChains(dir), 2000);
  });

  it('links every wallet chain with a saturated filter (every wallet "maybe held")', async () => {
    const dir = await tempDir();
    const tiny = { ...options, filterBytes: 8 };
    let log = await FileAuditLog.open(dir, tiny);
    await appendWallets(log, 0, 600);
    await appendWallets(log, 300, 600);
    await log.close();
    log = await FileAuditLog.open(dir, tiny);
    await appendWallets(log, 0, 1000);
    await log.close();
    assert.equal(assertWalletChains(dir), 2200);
  });

  it('links every wallet chain when old wallets return after a reopen with an unsaturated filter', async () => {
    const dir = await tempDir();
    let log = await FileAuditLog.open(dir, options);
    await appendWallets(log, 0, 800);
    await log.close();
    log = await FileAuditLog.open(dir, options);
    await appendWallets(log, 400, 800);
    await log.close();
    assert.equal(assertWalletChains(dir), 1600);
  });
});
