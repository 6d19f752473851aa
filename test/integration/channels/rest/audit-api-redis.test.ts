// The audit operations on the Redis audit store: the same verification, tampering done in Redis, the MCP function.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { EXIT_TAMPERED, runAuditVerify } from '../../../../src/tools/cli/audit-verify-command.js';
import { callMcpTool } from '../../../support/mcp-client.js';
import { startRedisServer, type RedisServer } from '../../../support/redis-server.js';
import { getJson, postJson, sampleTrade, startTestService, type TestService } from '../../../support/service.js';

const OPEN_MARKET = Date.UTC(2026, 10, 17, 15, 0, 0);
const WALLETS = ['0x00000000000000000000000000000000000000a1', '0x00000000000000000000000000000000000000a2', '0x00000000000000000000000000000000000000a3'];
const RECORDS = 'tg:audit:records';
const HEALTHY = { tampered: 0, healthy: true, records: [], first_broken_seq: null };

let redis: RedisServer;
let running: TestService;
let client: Redis;
let original: Map<string, Buffer>;
const received: Array<{ seq: number; hash: string }> = [];

before(async () => {
  redis = await startRedisServer();
  running = await startTestService({ REDIS_URL: redis.url, AUDIT_STORE: 'redis', RATE_LIMITS: 'off' }, undefined, { now: () => OPEN_MARKET });
  for (let i = 0; i < 12; i++) {
    const response = await postJson(`${running.base}/api/v1/analyze/free`, sampleTrade({ wallet: WALLETS[i % 3], amount: 1 }));
    received.push({ seq: response.json.audit_seq, hash: response.json.audit_hash });
  }
  client = new Redis(redis.url);
  original = new Map(Object.entries(await client.hgetallBuffer(RECORDS)));
});
after(async () => {
  client.disconnect();
  await running.stop();
  await redis.stop();
});
// Every test starts from the untouched chain.
beforeEach(async () => {
  await client.del(RECORDS);
  await client.hset(RECORDS, original);
});

const verify = async (path = '') => (await getJson(`${running.base}/api/v1/audit/verify${path}`)).json;
const hashOf = (seq: number) => received[seq - 1].hash;

describe('verification on the Redis audit store', () => {
  it('verifies the global chain and each wallet chain', async () => {
    assert.deepEqual(received.map((r) => r.seq), Array.from({ length: 12 }, (_, i) => i + 1));
    assert.deepEqual(await verify(), { total: 12, ...HEALTHY });
    assert.deepEqual(await verify(`/${WALLETS[1]}?limit=3`), { wallet: WALLETS[1], total: 3, ...HEALTHY });
  });

  it('finds a record rewritten in Redis with one byte flipped', async () => {
    const line = Buffer.from(original.get('5')!);
    line[line.length - 3] ^= 0x01;
    await client.hset(RECORDS, '5', line);
    assert.deepEqual(await verify(), {
      total: 12, tampered: 1, healthy: false, first_broken_seq: 5, records: [{ seq: 5, hash: hashOf(5), problem: 'hash_mismatch' }],
    });
  });

  it('finds a record deleted from Redis at the record after it, globally and in its wallet', async () => {
    await client.hdel(RECORDS, '7');
    assert.deepEqual(await verify(), {
      total: 11, tampered: 1, healthy: false, first_broken_seq: 8, records: [{ seq: 8, hash: hashOf(8), problem: 'seq_gap' }],
    });
    const wallet = await verify(`/${WALLETS[0]}`);
    assert.deepEqual(wallet, {
      wallet: WALLETS[0], total: 3, tampered: 1, healthy: false, first_broken_seq: 10,
      records: [{ seq: 10, hash: hashOf(10), problem: 'broken_link' }],
    });
  });

  it('finds a tail deleted from Redis against the head', async () => {
    await client.hdel(RECORDS, '11', '12');
    assert.deepEqual(await verify(), {
      total: 10, tampered: 2, healthy: false, first_broken_seq: 11, records: [{ seq: 11, hash: null, problem: 'truncated' }],
    });
  });

  it('pages the bulk job through the service and exits 1 on a tampered chain', async () => {
    await client.hset(RECORDS, '3', original.get('4')!, '4', original.get('3')!);
    let stdout = '';
    const status = await runAuditVerify([running.base, '--threads', '1'], { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: () => true } });
    assert.equal(status, EXIT_TAMPERED);
    assert.match(stdout, /first broken seq {2}4 \(reorder/);
  });
});

describe('verify_audit_trail over MCP, through the SDK client', () => {
  it('answers healthy, records_checked and first_broken_seq', async () => {
    const verify = async (args: Record<string, unknown>) => (await callMcpTool(running.base, 'verify_audit_trail', args)).structured;
    assert.deepEqual(await verify({ wallet: WALLETS[2] }), { healthy: true, records_checked: 4, first_broken_seq: null });
    assert.deepEqual(await verify({ wallet: WALLETS[2].toUpperCase().replace('0X', '0x'), limit: 2 }), {
      healthy: true, records_checked: 2, first_broken_seq: null,
    });
    const line = Buffer.from(original.get('9')!);
    line[80] ^= 0x01;
    await client.hset(RECORDS, '9', line);
    assert.deepEqual(await verify({ wallet: WALLETS[2] }), { healthy: false, records_checked: 4, first_broken_seq: 9 });
  });

  it('answers an error, never a verdict, for bad input', async () => {
    const answer = await callMcpTool(running.base, 'verify_audit_trail', { wallet: '0x12', limit: 0 });
    assert.equal(answer.isError, true);
    assert.equal(answer.structured.error, 'invalid arguments');
    assert.equal(answer.structured.code, 'validation_failed');
    assert.deepEqual((answer.structured.detail as { loc: unknown[]; msg: string }[]).map((issue) => [issue.loc, issue.msg]), [
      [['wallet'], 'String should have at least 42 characters'],
      [['limit'], 'Input should be greater than or equal to 1'],
    ]);
  });
});
