// Which devnet feeds the heartbeat renews: those whose latest round is a heartbeat old or older by chain time.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FEED_HEARTBEAT_SECONDS, feedsDue } from '../../../../src/tools/devnet/feed-keeper.js';

describe('feedsDue', () => {
  const now = 1_000_000n;
  const round = (symbol: string, age: number) => ({ symbol, updatedAt: now - BigInt(age) });

  it('names the rounds a heartbeat old or older, and none younger', () => {
    const rounds = [round('TSLA', FEED_HEARTBEAT_SECONDS - 1), round('NVDA', FEED_HEARTBEAT_SECONDS), round('AAPL', 65 * 60)];
    assert.deepEqual(feedsDue(rounds, now), ['NVDA', 'AAPL']);
  });

  it('judges by the chain time it is given, whatever the wall clock says', () => {
    assert.deepEqual(feedsDue([round('SPY', 0)], now + 3_600n), ['SPY']);
    assert.deepEqual(feedsDue([round('SPY', 0)], now), []);
  });
});
