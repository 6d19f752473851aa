// Format 3 facts keep neither the trade nor the time: the record's request and ts are them (a member it leaves out
// is the spec's default), so a verdict's facts are a few hundred bytes smaller, and replay still re-derives every verdict, on the file and the Redis log
// (ARCHITECTURE.md "Recorded facts").
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TRADE_DEFAULTS } from '../../../../src/schemas/trade.js';
import { EXIT_REPRODUCED, runAuditReplay } from '../../../../src/tools/cli/audit-replay-command.js';
import { callMcpTool } from '../../../support/mcp-client.js';
import { OPEN_MARKET_MS } from '../../../support/manual-clock.js';
import { startRedisServer, type RedisServer } from '../../../support/redis-server.js';
import { postJson, sampleTrade, startTestService, type TestService } from '../../../support/service.js';

const wallet = (n: number) => `0x${(0xf30 + n).toString(16).padStart(40, '0')}`;

/** Trades that differ in every member the engine reads, some left to their defaults, some set. */
const TRADES = [
  sampleTrade({ wallet: wallet(1), amount: 1 }),
  sampleTrade({ wallet: wallet(2), amount: 3, side: 'sell', max_slippage_bps: 700, deadline: Math.floor(OPEN_MARKET_MS / 1000) + 60 }),
  sampleTrade({ wallet: wallet(3), amount: 2, request_id: 'format-3-a' }),
  sampleTrade({ wallet: wallet(4), asset: 'NOPE', contract_address: `0x${'ab'.repeat(20)}`, allow_unregistered: true }),
];

async function replay(source: string): Promise<{ status: number; json: any; out: string }> {
  let out = '';
  const io = { stdout: { write: (text: string) => (out += text) }, stderr: { write: () => true, isTTY: false } };
  const status = await runAuditReplay([source, '--json'], io);
  return { status, json: JSON.parse(out), out };
}

/** The records of the log and, by seq, each record's own facts document (the shared ones left out). */
async function recordsAndOwnFacts(base: string, count: number): Promise<Array<{ record: any; facts: any; line: string }>> {
  const records = (await (await fetch(`${base}/api/v1/audit/export?from_seq=1&limit=${count}`)).text()).trim().split('\n').map((line) => JSON.parse(line.slice(65)));
  const lines = (await (await fetch(`${base}/api/v1/audit/facts?from_seq=1&limit=${count}`)).text()).trim().split('\n');
  return records.map((record) => {
    const line = lines.find((text) => text.startsWith(`${record.seq} ${record.facts_hash} `))!;
    return { record, line, facts: JSON.parse(line.slice(line.indexOf('{'))) };
  });
}

/** Evaluates TRADES on the free channel and one more through MCP; answers how many records were written. */
async function evaluateAll(base: string): Promise<number> {
  for (const trade of TRADES) assert.equal((await postJson(`${base}/api/v1/analyze/free`, trade)).status, 200);
  const mcp = await callMcpTool(base, 'evaluate_trade', sampleTrade({ wallet: wallet(5), amount: 4 }));
  assert.equal(mcp.isError, false, JSON.stringify(mcp.structured));
  return TRADES.length + 1;
}

/** What every backend must show: own facts without the record's request and ts, and every verdict replayed from them. */
async function assertFormat3(service: TestService, count: number): Promise<void> {
  for (const { record, facts, line } of await recordsAndOwnFacts(service.base, count)) {
    assert.equal(facts.format, 3, line);
    assert.equal(facts.input.nowMs, undefined, line);
    // The record leaves out what equals the spec's default and a reader puts it back, on every channel: the facts keep nothing of the trade.
    assert.equal(facts.input.trade, undefined, line);
    for (const [member, value] of Object.entries(TRADE_DEFAULTS)) assert.notEqual(record.request[member], value, line);
    const chosen = TRADES.find((trade) => trade.wallet === record.wallet);
    for (const member of ['max_slippage_bps', 'allow_unregistered'] as const) {
      if (chosen?.[member] !== undefined) assert.equal(record.request[member], chosen[member], line);
    }
    assert.equal(record.ts, OPEN_MARKET_MS, 'the record\'s ts is the time the verdict was judged at');
    // Nothing of the request is written a second time: neither its wallet (the record's own, format 3) nor its contract address.
    assert.equal(record.request.wallet, undefined);
    assert.ok(!line.includes(record.wallet.slice(2)) && !line.includes(record.request.contract_address.slice(2)), line);
  }
  const replayed = await replay(service.base);
  assert.equal(replayed.status, EXIT_REPRODUCED, replayed.out);
  assert.deepEqual([replayed.json.records, replayed.json.reproduced, replayed.json.differs], [count, count, 0]);
}

describe('format 3 facts on the file log', () => {
  let service: TestService;
  let count: number;
  before(async () => {
    service = await startTestService({ RATE_LIMITS: 'off', AUDIT_STORE: 'file' }, undefined, { now: () => OPEN_MARKET_MS });
    count = await evaluateAll(service.base);
  });
  after(() => service.stop());

  it('keep neither the trade nor the time, and replay from the service reproduces every verdict', () => assertFormat3(service, count));

  it('replay from the data directory reproduces every verdict too', async () => {
    const replayed = await replay(service.dataDir);
    assert.equal(replayed.status, EXIT_REPRODUCED, replayed.out);
    assert.deepEqual([replayed.json.records, replayed.json.reproduced], [count, count]);
  });
});

describe('format 3 facts on the Redis log', () => {
  let redis: RedisServer;
  let service: TestService;
  let count: number;
  before(async () => {
    redis = await startRedisServer();
    service = await startTestService({ RATE_LIMITS: 'off', REDIS_URL: redis.url, AUDIT_STORE: 'redis' }, undefined, { now: () => OPEN_MARKET_MS });
    count = await evaluateAll(service.base);
  });
  after(async () => {
    await service?.stop();
    await redis?.stop();
  });

  it('keep neither the trade nor the time, and replay from the service reproduces every verdict', () => assertFormat3(service, count));
});
