// Paid, on a chain whose clock runs ahead of the wall clock (ARCHITECTURE.md "Paid evaluation"): an authorization
// the chain finds expired is refused by that name before the facilitator is asked, and nothing is charged.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PaidWorld, payWith } from '../../../support/paid-world.js';
import { getJson, type TestService } from '../../../support/service.js';
import { useTempDirs } from '../../../support/temp-dirs.js';
import { pollUntil } from '../../../support/wait-until.js';
import { signPayment } from '../../../support/x402-payer.js';

const tempDir = useTempDirs('x402-chain-clock-');
let world: PaidWorld;
let service: TestService;

before(async () => {
  world = await PaidWorld.start(await tempDir());
  service = await world.service();
});
after(async () => {
  await service?.stop();
  await world?.close();
});

/** Moves the devnet's clock `seconds` ahead and mines, then waits until the service's head watch has that block. */
async function chainClockAhead(seconds: number): Promise<bigint> {
  await world.chain.request({ method: 'evm_increaseTime' as never, params: [seconds] as never });
  await world.chain.request({ method: 'evm_mine' as never });
  const mined = await world.chain.getBlock({ blockTag: 'latest' });
  await pollUntil('the service reads the block mined ahead', async () => (await getJson(`${service.base}/status.json`)).json,
    (status) => BigInt(status.components.chain.head.number) >= mined.number);
  return mined.timestamp;
}

describe('a chain clock two hours ahead of the wall clock', () => {
  it('refuses a payment signed by the wall clock as authorization_expired, naming the chain time, and charges nothing', async () => {
    const terms = await world.challenge(service.base);
    const chainNow = await chainClockAhead(2 * 3_600);
    const payer = world.devnet.wallets[1];
    const before = await world.usdc(payer.address);
    // What x402 clients sign: validBefore = the wall clock + maxTimeoutSeconds, which the chain has already passed.
    const payment = await signPayment(payer.privateKey, terms);
    const answer = await payWith(service.base, world.trade(), payment);
    assert.equal(answer.status, 402, answer.text);
    assert.equal(answer.json.reason, 'authorization_expired', answer.json.error);
    assert.match(answer.json.error, /^authorization_expired: .*\(validBefore "\d+", the latest block is at \d+\)$/);
    const latest = BigInt(/the latest block is at (\d+)/.exec(answer.json.error)![1]);
    assert.ok(latest >= chainNow, 'judged by the chain\'s time');
    assert.equal(answer.headers.get('payment-response'), null);
    assert.equal(await world.usdc(payer.address), before, 'nothing charged');
  });
});
