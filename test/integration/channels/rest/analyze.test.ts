// analyze/free and demo/analyze over real HTTP: verdicts, the audit chain, idempotency, rate limits.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { getJson, postJson, sampleTrade, startTestService, type TestService } from '../../../support/service.js';

// Tuesday 17 November 2026, 10:00 in New York: the NYSE regular session is open.
const OPEN_MARKET = Date.UTC(2026, 10, 17, 15, 0, 0);
const TSLA = '0xa6f91334bed73452616829fac9fa646b4b2b76e0';
const HASH = /^[0-9a-f]{64}$/;

let running: TestService;
const free = () => `${running.base}/api/v1/analyze/free`;

before(async () => {
  running = await startTestService({}, undefined, { now: () => OPEN_MARKET });
});
after(() => running.stop());

function wallet(n: number): string {
  return `0x${n.toString(16).padStart(40, '0')}`;
}

function auditLines(dataDir: string): { hash: string; record: any }[] {
  const text = readFileSync(join(dataDir, 'audit', 'audit.log'), 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => ({ hash: line.slice(0, 64), record: JSON.parse(line.slice(65)) }));
}

describe('verdicts', () => {
  it('returns every Verdict field for an allowed trade', async () => {
    const response = await postJson(free(), sampleTrade({ wallet: wallet(1), amount: 1 }));
    assert.equal(response.status, 200);
    const { audit_hash, audit_seq, ...rest } = response.json;
    assert.match(audit_hash, HASH);
    assert.equal(Number.isInteger(audit_seq), true);
    assert.deepEqual(rest, {
      decision: 'allow',
      reasons: [
        'PRICE_FALLBACK_DEFAULT: price 350.25 USD is a built-in default, not a live quote',
        'ADVISORY: PRICE_IMPACT_UNKNOWN: price impact of this trade is unknown: the service reads no chain',
      ],
      tier: 1,
      max_trade_usd: 5000,
      calculated_notional_usd: 350.25,
      price_impact_bps: null,
      price_usd: 350.25,
      price_source: 'fallback_default',
      risk_score: 8,
      timestamp: OPEN_MARKET / 1000,
      request_id: null,
      contract_risk: { severity: 'unchecked', flagged_danger: false, risk_factors: [] },
      daily_pnl_usd: 0,
    });
  });

  it('denies a contract that does not match the registry (suspected fake token)', async () => {
    const fake = `0x${'2'.repeat(40)}`;
    const response = await postJson(free(), sampleTrade({ wallet: wallet(2), amount: 1, contract_address: fake }));
    assert.equal(response.json.decision, 'deny');
    assert.equal(
      response.json.reasons[0],
      `FAKE_TOKEN_SUSPECTED: contract ${fake} does not match the registry address ${TSLA} for TSLA`,
    );
  });

  it('denies a notional over the Tier 1 ceiling', async () => {
    const response = await postJson(free(), sampleTrade({ wallet: wallet(3), amount: 20 }));
    assert.equal(response.json.decision, 'deny');
    assert.equal(response.json.calculated_notional_usd, 7005);
    assert.ok(response.json.reasons.includes('NOTIONAL_OVER_TIER_LIMIT: 7,005 USD exceeds the Tier 1 ceiling of 5,000 USD'));
  });

  it('denies an asset without a price (fail closed)', async () => {
    const response = await postJson(free(), sampleTrade({ wallet: wallet(4), asset: 'ZZZ', contract_address: `0x${'3'.repeat(40)}` }));
    assert.equal(response.json.decision, 'deny');
    assert.equal(response.json.price_source, 'unavailable');
    assert.equal(response.json.calculated_notional_usd, 0);
  });

  it('denies a contract flagged dangerous, whatever else holds', async () => {
    await running.service.store.set(`danger:${TSLA}`, JSON.stringify({ risk_factors: ['sell reverts'] }), 60_000);
    try {
      const response = await postJson(free(), sampleTrade({ wallet: wallet(5), amount: 1 }));
      assert.equal(response.json.decision, 'deny');
      assert.deepEqual(response.json.contract_risk, { severity: 'danger', flagged_danger: true, risk_factors: ['sell reverts'] });
    } finally {
      await running.service.store.delete(`danger:${TSLA}`);
    }
  });

  it('denies an asset the wallet policy blocks', async () => {
    await running.service.store.set(`policy:${wallet(6)}`, JSON.stringify({ blocked_assets: ['TSLA'] }), 0);
    const response = await postJson(free(), sampleTrade({ wallet: wallet(6), amount: 1 }));
    assert.equal(response.json.decision, 'deny');
    assert.match(response.json.reasons[0], /^ASSET_BLOCKED_BY_POLICY: /);
  });

  it('serves the same evaluation on demo/analyze with its own channel in the audit record', async () => {
    const response = await postJson(`${running.base}/api/v1/demo/analyze`, sampleTrade({ wallet: wallet(7), amount: 1 }));
    assert.equal(response.status, 200);
    assert.equal(response.json.tier, 1);
    const line = auditLines(running.dataDir).find((entry) => entry.record.seq === response.json.audit_seq);
    assert.equal(line?.record.channel, 'demo');
  });
});

describe('audit chain', () => {
  it('writes each verdict to the log before answering, linked and hashed as returned', async () => {
    const response = await postJson(free(), sampleTrade({ wallet: wallet(8), amount: 1 }));
    const lines = auditLines(running.dataDir);
    const line = lines.find((entry) => entry.record.seq === response.json.audit_seq);
    assert.equal(line?.hash, response.json.audit_hash);
    assert.equal(line?.record.decision, response.json.decision);
    assert.equal(line?.record.wallet, wallet(8));
    lines.forEach((entry, index) => {
      assert.equal(entry.record.seq, index + 1);
      if (index > 0) assert.equal(entry.record.prev_hash, lines[index - 1].hash);
    });
  });
});

describe('idempotency', () => {
  it('replays the stored verdict for a retried request_id, with one audit record', async () => {
    const body = sampleTrade({ wallet: wallet(20), amount: 1, request_id: 'order-20' });
    const first = await postJson(free(), body);
    const second = await postJson(free(), body);
    assert.deepEqual(second.json, first.json);
    assert.equal(auditLines(running.dataDir).filter((entry) => entry.record.wallet === wallet(20)).length, 1);
  });

  it('answers concurrent retries with one evaluation', async () => {
    const body = sampleTrade({ wallet: wallet(21), amount: 1, request_id: 'order-21' });
    const responses = await Promise.all(Array.from({ length: 8 }, () => postJson(free(), body)));
    const seqs = new Set(responses.map((response) => response.json.audit_seq));
    assert.equal(seqs.size, 1);
    assert.equal(auditLines(running.dataDir).filter((entry) => entry.record.wallet === wallet(21)).length, 1);
  });

  it('refuses the same request_id with another body', async () => {
    await postJson(free(), sampleTrade({ wallet: wallet(22), amount: 1, request_id: 'order-22' }));
    const response = await postJson(free(), sampleTrade({ wallet: wallet(22), amount: 2, request_id: 'order-22' }));
    assert.equal(response.status, 422);
    assert.deepEqual(response.json, {
      detail: [
        {
          loc: ['body', 'request_id'],
          msg: 'Value error, request_id was already used with a different request body; use a new request_id for a new trade',
          type: 'value_error',
          input: 'order-22',
          ctx: { error: 'idempotency key reused with a different body' },
        },
      ],
      code: 'idempotency_conflict',
    });
  });

  it('scopes keys to the wallet, so another wallet cannot read a verdict by its key', async () => {
    const mine = await postJson(free(), sampleTrade({ wallet: wallet(23), amount: 1, request_id: 'shared-key' }));
    const theirs = await postJson(free(), sampleTrade({ wallet: wallet(24), amount: 1, request_id: 'shared-key' }));
    assert.equal(theirs.status, 200);
    assert.notEqual(theirs.json.audit_seq, mine.json.audit_seq);
  });
});

describe('per-wallet window', () => {
  it('admits 10 Tier 1 evaluations per 60 s across analyze/free and demo, then answers 429', async () => {
    const body = sampleTrade({ wallet: wallet(30), amount: 1 });
    for (let i = 0; i < 10; i += 1) {
      const url = i % 2 ? `${running.base}/api/v1/demo/analyze` : free();
      assert.equal((await postJson(url, body)).status, 200);
    }
    const refused = await postJson(free(), body);
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get('retry-after'), '60');
    assert.deepEqual(refused.json, { detail: 'Rate limit exceeded: 10 requests per 60 seconds; retry after 60 s', code: 'rate_limited' });
  });
});

describe('restart', () => {
  it('resumes the chain where it stopped', async () => {
    const dataDir = running.dataDir;
    const before = await postJson(free(), sampleTrade({ wallet: wallet(40), amount: 1 }));
    await running.stop(false);
    running = await startTestService({}, dataDir, { now: () => OPEN_MARKET });
    const afterRestart = await postJson(free(), sampleTrade({ wallet: wallet(40), amount: 1 }));
    assert.equal(afterRestart.json.audit_seq, before.json.audit_seq + 1);
    const last = auditLines(dataDir).at(-1);
    assert.equal(last?.record.prev_hash, before.json.audit_hash);
    assert.equal(last?.record.wallet_prev_hash, before.json.audit_hash);
    assert.equal((await getJson(`${running.base}/healthz`)).status, 200);
  });
});
