// The embedded devnet's feeds stay fresh by chain time: anvil's clock moved past the staleness limit, the rounds are renewed with no restart (issue 43).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { getJson, startTestService, type TestService } from '../../../support/service.js';
import { pollUntil } from '../../../support/wait-until.js';

let running: TestService;

before(async () => {
  running = await startTestService({ REGISTRY_FILE: '' });
});
after(() => running?.stop());

/** One JSON-RPC call to the devnet's anvil. */
async function anvil(method: string, params: unknown[] = []): Promise<unknown> {
  const response = await fetch(running.service.chain.devnet!.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: unknown; error?: unknown };
  assert.equal(body.error, undefined, JSON.stringify(body.error));
  return body.result;
}

type FeedRow = { symbol: string; stale: boolean; age_seconds: number; stale_on_purpose?: true };
const feedsOf = async () => {
  const status = (await getJson(`${running.base}/status.json`)).json;
  return { status: status.status as string, feeds: status.components.feeds as { status: string; reason?: string; feeds: FeedRow[] } };
};

describe('the feed heartbeat', () => {
  it('renews every fresh feed within seconds of anvil\'s clock passing the staleness limit; /status.json is ok again; MSFT stays stale on purpose', async () => {
    const start = await pollUntil('the feeds are read', feedsOf, (read) => read.feeds.feeds.length > 0);
    assert.deepEqual(start.feeds.feeds.filter((feed) => feed.stale).map((feed) => [feed.symbol, feed.stale_on_purpose]), [['MSFT', true]]);
    assert.equal(start.feeds.status, 'ok');

    // 65 minutes of chain time, as an hour's run would pass them: every round is past the 3,600 s limit.
    await anvil('evm_increaseTime', [65 * 60]);
    await anvil('evm_mine');

    const renewed = await pollUntil('the feeds are renewed and /status.json is ok', feedsOf,
      (read) => read.status === 'ok' && read.feeds.feeds.every((feed) => feed.symbol === 'MSFT' || (feed.stale === false && feed.age_seconds < 3_600)), 30_000, 100);
    assert.deepEqual(renewed.feeds.feeds.map((feed) => [feed.symbol, feed.stale, feed.stale_on_purpose ?? false]), [
      ['TSLA', false, false], ['NVDA', false, false], ['AAPL', false, false], ['SPY', false, false], ['AMZN', false, false], ['MSFT', true, true],
    ]);
    assert.equal(renewed.feeds.status, 'ok');
  });
});
