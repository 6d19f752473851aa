// Writes test/golden/replay/: an audit log and the facts kept beside it, from a real service on the
// sample registry at a fixed time, for the replay golden test (test/integration/evaluation/replay/audit-replay.test.ts).
// Run after a build: node dist/test/golden/generate-replay-log.js [output directory]
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { postJson, sampleTrade, startTestService } from '../support/service.js';
import { OPEN_MARKET_MS } from '../support/manual-clock.js';

/** Trades that reach allow, warn and deny by different rules: size, slippage, a fake token, a fallback floor. */
export const GOLDEN_TRADES: Array<[string, Record<string, unknown>]> = [
  ['/api/v1/analyze/free', sampleTrade({ wallet: '0x00000000000000000000000000000000000000a1', amount: 1 })],
  ['/api/v1/analyze/free', sampleTrade({ wallet: '0x00000000000000000000000000000000000000a1', amount: 3 })],
  ['/api/v1/analyze/free', sampleTrade({ wallet: '0x00000000000000000000000000000000000000a2', amount: 1, max_slippage_bps: 1000 })],
  ['/api/v1/analyze/free', sampleTrade({ wallet: '0x00000000000000000000000000000000000000a2', amount: 1, contract_address: '0x000000000000000000000000000000000000dead' })],
  ['/api/v1/demo/analyze', sampleTrade({ wallet: '0x00000000000000000000000000000000000000a3', amount: 40, side: 'sell' })],
  ['/api/v1/analyze/free', sampleTrade({ wallet: '0x00000000000000000000000000000000000000a1', amount: 1, max_slippage_bps: 600 })],
];

async function main(): Promise<void> {
  const out = process.argv[2] ?? fileURLToPath(new URL('../../../test/golden/replay/', import.meta.url));
  const service = await startTestService({ RATE_LIMITS: 'off' }, undefined, { now: () => OPEN_MARKET_MS });
  try {
    for (const [path, trade] of GOLDEN_TRADES) {
      const answer = await postJson(`${service.base}${path}`, trade);
      if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}: ${answer.text}`);
      process.stdout.write(`${answer.json.audit_seq} ${answer.json.decision} ${answer.json.risk_score}\n`);
    }
    await service.stop(false);
    mkdirSync(join(out, 'audit'), { recursive: true });
    for (const file of ['audit.log', 'facts.log']) copyFileSync(join(service.dataDir, 'audit', file), join(out, 'audit', file));
  } catch (error) {
    await service.stop();
    throw error;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
