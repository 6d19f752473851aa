// The on-disk wallet-head table: every wallet keeps its newest head through splits, overflow chains and reopening.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { walletKey } from '../../../../src/audit/file/audit-index.js';
import { OVERFLOW_FILE_NAME, TABLE_FILE_NAME, WalletTable } from '../../../../src/audit/file/wallet-table.js';

const dirs: string[] = [];
after(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function freshTable(): Promise<{ dir: string; table: WalletTable }> {
  const dir = await mkdtemp(join(tmpdir(), 'audit-wallet-table-'));
  dirs.push(dir);
  const { table } = WalletTable.open(dir);
  table.reset();
  return { dir, table };
}

const hashOf = (n: number) => createHash('sha256').update(`record ${n}`).digest();
const wallet = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;

/** Keys whose bucket bits (the first 48) are all zero: they share one bucket however far the table grows. */
function collidingKey(n: number): Buffer {
  const key = Buffer.alloc(16);
  key.writeUInt32BE(n + 1, 12);
  return key;
}

describe('WalletTable', () => {
  it('keeps the newest head of 20,000 wallets across bucket splits, and after reopening', async () => {
    const { dir, table } = await freshTable();
    const expected = new Map<number, number>();
    for (let n = 0; n < 20_000; n++) {
      assert.equal(table.put(walletKey(wallet(n)), n + 1, hashOf(n + 1)), 0, 'a new wallet replaces nothing');
      expected.set(n, n + 1);
    }
    for (let n = 0; n < 20_000; n += 3) {
      assert.equal(table.put(walletKey(wallet(n)), 20_001 + n, hashOf(20_001 + n)), expected.get(n), 'an update returns the head it replaced');
      expected.set(n, 20_001 + n);
    }
    const check = (t: WalletTable) => {
      for (const [n, pos] of expected) assert.deepEqual(t.get(walletKey(wallet(n))), { pos, hash: hashOf(pos) }, `wallet ${n}`);
      assert.equal(t.get(walletKey(wallet(20_000))), null);
    };
    check(table);
    table.markApplied(40_000);
    table.close();
    assert.ok(statSync(join(dir, TABLE_FILE_NAME)).size > 65 * 4096, 'the table grew past its first 64 buckets');
    const { table: again, intact } = WalletTable.open(dir);
    assert.deepEqual([intact, again.applied], [true, 40_000]);
    check(again);
    again.close();
  });

  it('chains overflow pages for wallets that share a bucket', async () => {
    const { dir, table } = await freshTable();
    for (let n = 0; n < 300; n++) table.put(collidingKey(n), n + 1, hashOf(n + 1));
    table.put(collidingKey(150), 1000, hashOf(1000));
    for (let n = 0; n < 300; n++) {
      const pos = n === 150 ? 1000 : n + 1;
      assert.deepEqual(table.get(collidingKey(n)), { pos, hash: hashOf(pos) }, `key ${n}`);
    }
    table.close();
    assert.ok(statSync(join(dir, OVERFLOW_FILE_NAME)).size >= 3 * 4096, '300 keys in one bucket take overflow pages');
  });

  it('keeps a later head when a replay offers an older one', async () => {
    const { table } = await freshTable();
    const key = walletKey(wallet(1));
    table.put(key, 10, hashOf(10));
    assert.equal(table.put(key, 7, hashOf(7), true), 10);
    assert.deepEqual(table.get(key), { pos: 10, hash: hashOf(10) });
    table.put(key, 12, hashOf(12), true);
    assert.deepEqual(table.get(key), { pos: 12, hash: hashOf(12) });
    table.close();
  });

  it('reports a table file it did not write as not intact', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'audit-wallet-table-'));
    dirs.push(dir);
    writeFileSync(join(dir, TABLE_FILE_NAME), 'not a table');
    const { table, intact } = WalletTable.open(dir);
    assert.equal(intact, false);
    table.close();
  });
});
