// What an operator reads: /status.json and /status, Prometheus /metrics, latency JSON and page, /debug/feeds, request ids.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startDevnet, type Devnet } from '../../../src/tools/devnet/devnet.js';
import { FeedReport, LatencyReport } from '../../../src/schemas/operations.js';
import { compileValidator } from '../../../src/schemas/validator.js';
import { getJson, postJson, sampleTrade, send, startTestService, type TestService } from '../../support/service.js';
import { useTempDirs } from '../../support/temp-dirs.js';
import { parsePrometheusText } from '../../support/prometheus-text.js';
import { writeRegistryFile } from '../../support/chain-support.js';

const ADMIN_TOKEN = 'operations-test-admin-token-0123456789';
let offline: TestService;

before(async () => {
  offline = await startTestService({ ADMIN_TOKEN });
});
after(() => offline.stop());

describe('the status document and page', () => {
  it('says version, uptime, every component with a reason when not ok, and the last minute per route', async () => {
    assert.equal((await postJson(`${offline.base}/api/v1/analyze/free`, sampleTrade())).status, 200);
    const doc = (await getJson(`${offline.base}/status.json`)).json;
    assert.equal(doc.version, (await getJson(`${offline.base}/`)).json.version);
    assert.ok(Number.isInteger(doc.uptime_seconds));
    assert.deepEqual(Object.keys(doc.components), ['store', 'chain', 'audit', 'feeds', 'scoring', 'facilitator']);
    assert.deepEqual(doc.components.scoring, { status: 'ok', threads: 1, queued: 0 });
    assert.deepEqual(doc.components.feeds, { status: 'ok', kind: 'offline', feeds: [] });
    assert.equal(doc.components.audit.fsync, 'off');
    assert.equal(doc.components.facilitator.enabled, false, 'offline, the paid channel is off');
    assert.equal(doc.status, 'ok');
    assert.deepEqual(doc.reasons, []);
    const analyzed = doc.traffic['POST /api/v1/analyze/free'];
    assert.equal(analyzed.count, 1);
    assert.ok(analyzed.p99_ms >= analyzed.p50_ms && analyzed.p50_ms > 0);
  });

  it('serves /status as a page that reads the document', async () => {
    const page = await send('GET', `${offline.base}/status`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type')!, /^text\/html/);
    assert.match(page.text, /fetch\("\/status\.json"/);
    assert.match(page.text, /setInterval\(refresh, 5000\)/);
  });
});

describe('metrics and latency', () => {
  it('counts requests by route and status, decisions by channel, and rate-limit refusals, in Prometheus text', async () => {
    const wallet = '0x00000000000000000000000000000000000000e1';
    for (let i = 0; i < 11; i += 1) await postJson(`${offline.base}/api/v1/analyze/free`, sampleTrade({ wallet, amount: 1 }));
    assert.equal((await getJson(`${offline.base}/api/v1/audit/verify/${wallet}`)).json.healthy, true);
    const metrics = await send('GET', `${offline.base}/metrics`);
    assert.equal(metrics.status, 200);
    assert.match(metrics.headers.get('content-type')!, /^text\/plain; version=0\.0\.4/);
    const value = (line: RegExp) => Number(line.exec(metrics.text)?.[1] ?? NaN);
    assert.ok(value(/guardrail_http_requests_total\{route="\/api\/v1\/analyze\/free",method="POST",status="200"\} (\d+)/) >= 10);
    assert.equal(value(/guardrail_http_requests_total\{route="\/api\/v1\/analyze\/free",method="POST",status="429"\} (\d+)/), 1);
    assert.equal(value(/guardrail_rate_limited_total\{route="\/api\/v1\/analyze\/free"\} (\d+)/), 1);
    assert.ok(value(/guardrail_decisions_total\{channel="free",decision="allow"\} (\d+)/) >= 10);
    assert.ok(value(/guardrail_audit_appends_total (\d+)/) >= 10);
    assert.match(metrics.text, /guardrail_http_request_duration_seconds_bucket\{le="0\.005",route="\/api\/v1\/analyze\/free"\} \d+/);
    assert.match(metrics.text, /guardrail_scoring_queue_depth 0/);
    // The proof tree's thread, with the seconds it has been busy (the file log's index is read on the event loop).
    for (const thread of ['audit_tree']) {
      const busy = value(new RegExp(`guardrail_thread_busy_seconds_total\\{thread="${thread}"\\} ([0-9.e-]+)`));
      assert.ok(busy > 0 && busy < 600, `${thread}: ${busy}`);
    }
    assert.ok(value(/guardrail_audit_verifications_total (\d+)/) >= 1);
    assert.equal(value(/guardrail_audit_verifications_broken_total (\d+)/), 0);
  });

  it('is strict Prometheus text: running totals are counters named _total, with the process and Node runtime defaults', async () => {
    const families = parsePrometheusText((await send('GET', `${offline.base}/metrics`)).text);
    for (const [name, family] of families) {
      // A counter says it is one (Prometheus naming practice); no gauge of ours poses as a total
      // (prom-client's own defaults keep three gauges named `nodejs_active_*_total`).
      if (family.type === 'counter' || name.startsWith('guardrail_')) assert.equal(family.type === 'counter', name.endsWith('_total'), `${name} is a ${family.type}`);
      assert.ok(family.help.length > 0, `${name} has a HELP`);
    }
    for (const name of ['guardrail_audit_appends_total', 'guardrail_audit_writes_total', 'guardrail_audit_verifications_total', 'guardrail_log_lines_dropped_total', 'guardrail_thread_busy_seconds_total']) {
      assert.equal(families.get(name)?.type, 'counter', name);
    }
    for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes', 'nodejs_gc_duration_seconds']) {
      assert.ok(families.has(name), `${name} (prom-client's defaults)`);
    }
  });

  it('logs and counts what no route answers: a 404 and a 405, each with its X-Request-Id', async () => {
    const missing = await getJson(`${offline.base}/no/such/path`);
    const wrong = await send('DELETE', `${offline.base}/api/v1/assets`);
    assert.deepEqual([missing.status, wrong.status], [404, 405]);
    assert.match(missing.headers.get('x-request-id') ?? '', /\S/);
    const client = await getJson(`${offline.base}/no/such/path`, { 'x-request-id': 'client-404-id' });
    assert.equal(client.headers.get('x-request-id'), 'client-404-id');
    const counted = parsePrometheusText((await send('GET', `${offline.base}/metrics`)).text).get('guardrail_http_requests_total')!.samples;
    const count = (route: string, method: string, status: string) =>
      counted.find((s) => s.labels.route === route && s.labels.method === method && s.labels.status === status)?.value;
    assert.equal(count('/*', 'GET', '404'), 2);
    assert.equal(count('/api/v1/assets', 'DELETE', '405'), 1);
    assert.match(wrong.headers.get('x-request-id') ?? '', /\S/);
  });

  it('gives p50, p90, p99, p99.9 and counts over 1 minute, 5 minutes and 1 hour, and a page that charts them', async () => {
    await postJson(`${offline.base}/api/v1/analyze/free`, sampleTrade({ wallet: '0x00000000000000000000000000000000000000e2' }));
    const doc = (await getJson(`${offline.base}/metrics/latency.json`)).json;
    assert.equal(compileValidator(LatencyReport, 'body')(doc).ok, true, 'the answer is what the OpenAPI document says');
    const route = doc.routes['POST /api/v1/analyze/free'];
    assert.deepEqual(Object.keys(route), ['1m', '5m', '1h']);
    for (const window of Object.values(route) as Record<string, number>[]) {
      assert.deepEqual(Object.keys(window), ['count', 'p50_ms', 'p90_ms', 'p99_ms', 'p999_ms', 'max_ms']);
      assert.ok(window.count >= 1 && window.p50_ms <= window.p90_ms && window.p90_ms <= window.p99_ms && window.p99_ms <= window.p999_ms);
    }
    const page = await send('GET', `${offline.base}/latency.html`);
    assert.equal(page.status, 200);
    for (const asset of [...page.text.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1])) {
      const served = await send('GET', `${offline.base}${asset}`);
      assert.equal(served.status, 200, asset);
      assert.match(served.headers.get('content-type')!, /^text\/(javascript|css)/);
      assert.ok(served.text.length > 1000, 'the real library, from the installed package');
    }
  });
});

describe('request ids', () => {
  it('answers every request with X-Request-Id: the client\'s plain token, else one of its own', async () => {
    const mine = await send('GET', `${offline.base}/healthz`, undefined, { 'x-request-id': 'trace-42.a' });
    assert.equal(mine.headers.get('x-request-id'), 'trace-42.a');
    const [a, b] = [await send('GET', `${offline.base}/healthz`), await send('GET', `${offline.base}/healthz`, undefined, { 'x-request-id': 'bad id <script>' })];
    assert.match(a.headers.get('x-request-id')!, /^[0-9a-z]+-[0-9a-z]+$/);
    assert.match(b.headers.get('x-request-id')!, /^[0-9a-z]+-[0-9a-z]+$/);
    assert.notEqual(a.headers.get('x-request-id'), b.headers.get('x-request-id'));
  });
});

describe('/debug/feeds', () => {
  const tempDir = useTempDirs('operations-');
  let devnet: Devnet;
  let onChain: TestService;
  let disabled: TestService;

  before(async () => {
    devnet = await startDevnet();
    onChain = await startTestService({ ADMIN_TOKEN, RPC_URL: devnet.rpcUrl, REGISTRY_FILE: writeRegistryFile(devnet, await tempDir()) });
    disabled = await startTestService({});
  });
  after(async () => {
    await onChain?.stop();
    await disabled?.stop();
    await devnet?.close();
  });

  it('is 401 without the header, 403 with a wrong token, 403 saying so when ADMIN_TOKEN is unset', async () => {
    const url = (s: TestService) => `${s.base}/debug/feeds`;
    assert.deepEqual((await getJson(url(onChain))).json.code, 'admin_token_missing');
    assert.equal((await getJson(url(onChain))).status, 401);
    const wrong = await getJson(url(onChain), { 'x-admin-token': `${ADMIN_TOKEN}x` });
    assert.deepEqual([wrong.status, wrong.json.code], [403, 'admin_token_invalid']);
    const off = await getJson(url(disabled), { 'x-admin-token': ADMIN_TOKEN });
    assert.deepEqual([off.status, off.json.code], [403, 'admin_disabled']);
    assert.match(off.json.detail, /ADMIN_TOKEN is not set/);
  });

  it('gives every feed\'s round, answer, updatedAt, age, decimals and stale flag, with the venue price and deviation', async () => {
    const answer = await getJson(`${onChain.base}/debug/feeds`, { 'x-admin-token': ADMIN_TOKEN });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(compileValidator(FeedReport, 'body')(answer.json).ok, true, 'the answer is what the OpenAPI document says');
    assert.ok(answer.json.block.number > 0);
    const bySymbol = new Map(answer.json.feeds.map((feed: { symbol: string }) => [feed.symbol, feed]));
    assert.deepEqual([...bySymbol.keys()].sort(), devnet.registry.assets.map((asset) => asset.symbol).sort());
    const tsla = bySymbol.get('TSLA') as Record<string, unknown>;
    assert.deepEqual(
      { ...tsla, updated_at: typeof tsla.updated_at, age_seconds: typeof tsla.age_seconds },
      {
        symbol: 'TSLA', feed: devnet.registry.assets.find((asset) => asset.symbol === 'TSLA')!.price_feed, decimals: 8, round_id: '1',
        answer: '35025000000', price_usd: 350.25, updated_at: 'number', age_seconds: 'number', stale: false,
        venue_price_usd: tsla.venue_price_usd, deviation_bps: tsla.deviation_bps,
      },
    );
    assert.ok(Math.abs((tsla.venue_price_usd as number) - 350.25) < 1, 'the pool prices TSLA near its feed');
    for (const symbol of devnet.staleFeeds) assert.equal((bySymbol.get(symbol) as { stale: boolean }).stale, true, symbol);
    const status = (await getJson(`${onChain.base}/status.json`)).json;
    assert.equal(status.components.feeds.status, devnet.staleFeeds.length > 0 ? 'degraded' : 'ok');
    assert.ok(status.components.chain.head.number > 0);
  });
});
