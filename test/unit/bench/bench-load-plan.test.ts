// The bench's requests (what analyze.lua sends, built again for autocannon) and the rows made of the runs.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { planEnvironment, requestAt, rotationFile, type LoadPlan } from '../../../bench/load-plan.js';
import { scenarioRows, type Measurement } from '../../../bench/scenario-rows.js';
import { parseWrkSummary } from '../../../bench/wrk.js';
import { cpu } from '../../support/bench-fixtures.js';

const plan: LoadPlan = { url: 'http://x/a', asset: 'TSLA', contract: '0xc0', walletOffset: 1, walletCycle: 3, mcp: false, rotation: [] };
const wallet = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;

describe('requestAt', () => {
  it('cycles the wallets of a fleet from the offset, and never repeats one without a cycle', () => {
    assert.deepEqual([1, 2, 3, 4].map((n) => JSON.parse(requestAt(plan, n).body).wallet), [wallet(2), wallet(3), wallet(1), wallet(2)]);
    assert.deepEqual([1, 2].map((n) => JSON.parse(requestAt({ ...plan, walletOffset: 255, walletCycle: 0 }, n).body).wallet), [wallet(256), wallet(257)]);
  });

  it('writes the trade in the form of analyze.lua\'s format string', () => {
    assert.deepEqual(requestAt(plan, 1), {
      headers: { 'content-type': 'application/json' },
      body: `{"wallet":"${wallet(2)}","asset":"TSLA","contract_address":"0xc0","side":"buy","amount":1}`,
    });
  });

  it('rotates a header per request, with the wallet that goes with it', () => {
    const rotation = [{ wallet: '0xaa', header: 'authorization', value: 'Bearer a' }, { wallet: '0xbb', header: 'authorization', value: 'Bearer b' }];
    const sent = [1, 2, 3].map((n) => requestAt({ ...plan, rotation }, n));
    assert.deepEqual(sent.map((r) => [JSON.parse(r.body).wallet, r.headers.authorization]), [['0xaa', 'Bearer a'], ['0xbb', 'Bearer b'], ['0xaa', 'Bearer a']]);
    assert.equal(rotationFile(rotation), '0xaa\tauthorization\tBearer a\n0xbb\tauthorization\tBearer b\n');
  });

  it('wraps the trade as an MCP tools/call with the session of its turn', () => {
    const mcp = { ...plan, mcp: true, rotation: [{ wallet: null, header: 'mcp-session-id', value: 's1' }] };
    assert.deepEqual(requestAt(mcp, 7), {
      headers: { 'content-type': 'application/json', 'mcp-session-id': 's1', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"evaluate_trade","arguments":{"wallet":"${wallet(2)}","asset":"TSLA","contract_address":"0xc0","side":"buy","amount":1}}}`,
    });
    assert.equal(rotationFile(mcp.rotation), '-\tmcp-session-id\ts1\n');
  });

  it('hands the plan to analyze.lua in its environment', () => {
    assert.deepEqual(planEnvironment(plan), { BENCH_ASSET: 'TSLA', BENCH_CONTRACT: '0xc0', BENCH_WALLET_OFFSET: '1', BENCH_WALLET_CYCLE: '3', BENCH_MCP: '0' });
    assert.equal(planEnvironment({ ...plan, answers: 404 }).BENCH_ANSWERS, '404', 'the status every answer of the edge row carries');
  });
});

describe('scenarioRows', () => {
  const measured = (id: string, requests: number): Measurement => ({
    id, label: id, note: '', cpu: cpu(),
    run: { requests, durationSeconds: 2, p50Ms: 1, p99Ms: 2, non2xx: 0, socketErrors: 0 },
  });

  it('divides every row by the echo, and MCP also by offline REST', () => {
    const rows = scenarioRows([measured('echo', 100_000), measured('offline', 20_000), measured('mcp', 5_000)]);
    assert.deepEqual(rows.map((r) => [r.id, r.requestsPerSecond, r.ratioToEcho, r.ratioToRest]), [
      ['echo', 50_000, 1, null], ['offline', 10_000, 0.2, null], ['mcp', 2_500, 0.05, 0.25],
    ]);
    assert.deepEqual(rows[1].cpuUsPerRequest, cpu(), 'the CPU by thread is carried as measured');
  });

  it('leaves MCP without a REST ratio when the offline row did not run', () => {
    assert.equal(scenarioRows([measured('echo', 10), measured('mcp', 5)])[1].ratioToRest, null);
  });

  it('refuses to make rows without an echo to divide by', () => {
    assert.throws(() => scenarioRows([measured('offline', 10)]), { message: 'no echo measurement to compare the scenarios with' });
  });
});

describe('parseWrkSummary', () => {
  it('reads the line analyze.lua\'s done() prints among wrk\'s own output, and nothing without one', () => {
    const stdout = 'Running 10s test @ http://127.0.0.1:1/a\n  1 threads and 64 connections\nWRK 120000 10001234 0.812 3.456 5 2\nRequests/sec:  11998.52\n';
    assert.deepEqual(parseWrkSummary(stdout), { requests: 120_000, durationSeconds: 10.001234, p50Ms: 0.812, p99Ms: 3.456, non2xx: 5, socketErrors: 2 });
    assert.equal(parseWrkSummary('Requests/sec:  11998.52\n'), null);
    // The line as the script writes it: six figures, two of them with three decimals.
    const lua = readFileSync(new URL('../../../../bench/analyze.lua', import.meta.url), 'utf8');
    assert.match(lua, /string\.format\("WRK %d %d %\.3f %\.3f %d %d\\n"/);
  });
});
