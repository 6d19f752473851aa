// RedisAuditLog against a real redis-server: the shared contract plus multi-instance chains.
import assert from 'node:assert/strict';
import { setImmediate as yieldTurn } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import type { AuditRecord } from '../../../../src/audit/record/audit-log.js';
import { AuditConflictError, RedisAuditLog, type RedisAuditLogOptions } from '../../../../src/audit/redis/redis-audit-log.js';
import { WALLET_A, WALLET_B, WALLET_C, checkChain, sampleEntry } from '../../../support/audit-fixtures.js';
import { auditLogContract } from '../../../support/audit-log-contract.js';
import { freePort, startRedisServer, type RedisServer } from '../../../support/redis-server.js';

let server: RedisServer;
let stores = 0;
before(async () => {
  server = await startRedisServer();
});
after(async () => {
  await server.stop();
});

function freshPrefix(): string {
  stores += 1;
  return `tg:test${stores}:`;
}

// Record timestamps only need a clock here, not a controlled one: nothing in this file ages.
const connect = (prefix: string, options: Partial<RedisAuditLogOptions> = {}) => RedisAuditLog.connect(server.url, { prefix, now: Date.now, ...options });

auditLogContract({
  name: 'RedisAuditLog',
  // 500 queued appends split into script calls of at most 256 records.
  writesFor500: 2,
  async freshStore() {
    const prefix = freshPrefix();
    return () => connect(prefix);
  },
});

describe('RedisAuditLog across instances', () => {
  it('keeps one linear gap-free chain when two instances append 300 records each, interleaved', async () => {
    const prefix = freshPrefix();
    const [one, two] = await Promise.all([connect(prefix), connect(prefix)]);
    const wallets = [WALLET_A, WALLET_B, WALLET_C];
    const mine: Array<Promise<AuditRecord>> = [];
    const theirs: Array<Promise<AuditRecord>> = [];
    for (let round = 0; round < 30; round++) {
      for (let i = 0; i < 10; i++) {
        const n = round * 10 + i;
        mine.push(one.append(sampleEntry(wallets[n % 3], n)));
        theirs.push(two.append(sampleEntry(wallets[(n + 1) % 3], 1000 + n)));
      }
      await yieldTurn();
    }
    const [a, b] = await Promise.all([Promise.all(mine), Promise.all(theirs)]);
    for (const records of [a, b]) {
      assert.ok(records.every((r, i) => i === 0 || r.seq > records[i - 1].seq), 'each instance keeps its call order');
    }
    const all = [...a, ...b].map((r) => r.seq).sort((x, y) => x - y);
    assert.deepEqual(all, Array.from({ length: 600 }, (_, i) => i + 1));
    const lines = await one.readLines(1, 1000);
    assert.equal(checkChain(lines).length, 600);
    assert.deepEqual(await two.head(), { seq: 600, hash: lines[599].toString('latin1', 0, 64) });
    await Promise.all([one.close(), two.close()]);
  });

  it('re-seals on the newer head when another instance appended first', async () => {
    const prefix = freshPrefix();
    const late = await connect(prefix);
    const early = await connect(prefix);
    const theirs = [await early.append(sampleEntry(WALLET_A, 0)), await early.append(sampleEntry(WALLET_B, 1))];
    const mine = await late.append(sampleEntry(WALLET_A, 2));
    assert.deepEqual([mine.seq, mine.prev_hash, mine.wallet_prev_hash], [3, theirs[1].hash, theirs[0].hash]);
    assert.deepEqual([late.stats.conflicts, late.stats.writes], [0, 1]);
    await Promise.all([late.close(), early.close()]);
  });

  it('detects a stale cached wallet head through the script and retries', async () => {
    const prefix = freshPrefix();
    const one = await connect(prefix);
    const two = await connect(prefix);
    const first = await one.append(sampleEntry(WALLET_A, 0));
    const theirs = await two.append(sampleEntry(WALLET_A, 1));
    const mine = await one.append(sampleEntry(WALLET_A, 2));
    assert.deepEqual([mine.seq, mine.prev_hash, mine.wallet_prev_hash], [3, theirs.hash, theirs.hash]);
    assert.notEqual(mine.wallet_prev_hash, first.hash);
    assert.deepEqual([one.stats.conflicts, one.stats.writes], [1, 2]);
    await Promise.all([one.close(), two.close()]);
  });

  it('rejects, failing closed, when the head keeps moving beyond maxAttempts', async () => {
    const prefix = freshPrefix();
    const strict = await connect(prefix, { maxAttempts: 1 });
    const other = await connect(prefix);
    try {
      await strict.append(sampleEntry(WALLET_A, 0));
      await other.append(sampleEntry(WALLET_B, 1));
      // WALLET_A's head is cached, so strict seals on its stale view and the script refuses it.
      await assert.rejects(strict.append(sampleEntry(WALLET_A, 2)), AuditConflictError);
      assert.deepEqual([strict.stats.conflicts, (await strict.head()).seq], [1, 2]);
      // Giving up released strict's fairness claim: other appends on its first attempt.
      assert.deepEqual([other.stats.conflicts, (await other.append(sampleEntry(WALLET_B, 3))).seq, other.stats.conflicts], [0, 3, 0]);
      // Stale again after other's append; each refusal teaches strict the head, so the next one lands.
      await assert.rejects(strict.append(sampleEntry(WALLET_A, 4)), AuditConflictError);
      assert.equal((await strict.append(sampleEntry(WALLET_A, 5))).seq, 4);
    } finally {
      await Promise.all([strict.close(), other.close()]);
    }
  });

  it('rejects connect when Redis is unreachable, leaving nothing running', async () => {
    const closed = `redis://127.0.0.1:${await freePort()}`;
    await assert.rejects(RedisAuditLog.connect(closed, { prefix: freshPrefix(), now: Date.now }), /^Error: audit log could not reach Redis: /);
  });

  it('stores the exact line bytes under the prefix, keyed by seq, with per-wallet seq lists', async () => {
    const prefix = freshPrefix();
    const log = await connect(prefix);
    const r = [await log.append(sampleEntry(WALLET_A, 0)), await log.append(sampleEntry(WALLET_B, 1))];
    const raw = new Redis(server.url);
    try {
      const stored = await raw.hgetBuffer(`${prefix}records`, '2');
      assert.deepEqual(stored, (await log.readLines(2, 1))[0]);
      assert.equal(stored?.toString('latin1', 0, 65), `${r[1].hash} `);
      assert.deepEqual(await raw.lrange(`${prefix}wallet:${WALLET_A.toLowerCase()}`, 0, -1), ['1']);
      assert.deepEqual(await raw.hgetall(`${prefix}head`), { seq: '2', hash: r[1].hash });
    } finally {
      raw.disconnect();
      await log.close();
    }
  });
});
