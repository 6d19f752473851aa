// One payment, one verdict on Redis: one instance, and two instances sharing Redis, one chain and one facilitator.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { after, before, describe, it } from 'node:test';
import { PaidWorld, PRICE, payWith, walletRecords } from '../../../support/paid-world.js';
import { startRedisServer, type RedisServer } from '../../../support/redis-server.js';
import { postJson, type TestService } from '../../../support/service.js';
import { useTempDirs } from '../../../support/temp-dirs.js';
import { signPayment } from '../../../support/x402-payer.js';

const tempDir = useTempDirs('x402-redis-');
let world: PaidWorld;
let redis: RedisServer;
let a: TestService;
let b: TestService;

/** Instances on one Redis chain sign its checkpoints with one key (docs/audit-records.md "Checkpoints and proofs"). */
const onRedis = () => ({ REDIS_URL: redis.url, AUDIT_STORE: 'redis', AUDIT_SIGNING_KEY: Buffer.alloc(32, 3).toString('base64') });

before(async () => {
  world = await PaidWorld.start(await tempDir());
  redis = await startRedisServer();
  const env = onRedis();
  a = await world.service(env);
  b = await world.service(env);
});
after(async () => {
  await a?.stop();
  await b?.stop();
  await redis?.stop();
  await world?.close();
});

/** Twenty simultaneous requests with one payment, sent to the instances in turn; what came back and what it cost. */
async function twenty(instances: TestService[], payer: { address: string; privateKey: `0x${string}` }) {
  const payment = await signPayment(payer.privateKey, await world.challenge(instances[0].base));
  const body = world.trade();
  const before = await world.usdc(payer.address);
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => payWith(instances[i % instances.length].base, body, payment)));
  return { answers, body, charged: before - (await world.usdc(payer.address)) };
}

function assertOneVerdict(answers: Awaited<ReturnType<typeof twenty>>['answers']): void {
  const verdicts = answers.filter((answer) => answer.status === 200);
  assert.ok(verdicts.length >= 1, 'at least one request gets the verdict');
  assert.equal(new Set(verdicts.map((answer) => answer.json.audit_seq)).size, 1, 'every verdict is the one saved');
  for (const refused of answers.filter((answer) => answer.status !== 200)) {
    assert.equal(refused.status, 402, refused.text);
    assert.equal(refused.json.reason, 'payment_in_progress');
  }
}

describe('one payment, one verdict on Redis', () => {
  it('one instance: twenty simultaneous requests settle once and write one record', async () => {
    const { answers, body, charged } = await twenty([a], world.devnet.wallets[1]);
    assertOneVerdict(answers);
    assert.equal(charged, PRICE);
    assert.equal((await walletRecords(a.base, String(body.wallet))).length, 1);
  });

  it('two instances: twenty simultaneous requests split across both settle once and write one record', async () => {
    const { answers, body, charged } = await twenty([a, b], world.devnet.wallets[2]);
    assertOneVerdict(answers);
    assert.equal(charged, PRICE);
    assert.equal((await walletRecords(b.base, String(body.wallet))).length, 1);
    const fromB = answers.filter((answer, i) => i % 2 === 1 && answer.status === 200);
    assert.ok(fromB.length > 0 || answers.some((answer) => answer.status === 402), 'the second instance answered too');
  });

  it('a payment spent on one instance is refused for another body on the other', async () => {
    const payer = world.devnet.wallets[3];
    const payment = await signPayment(payer.privateKey, await world.challenge(a.base));
    const bought = await payWith(a.base, world.trade(), payment);
    assert.equal(bought.status, 200, bought.text);
    const reused = await payWith(b.base, world.trade(), payment);
    assert.equal(reused.status, 402);
    assert.equal(reused.json.reason, 'payment_used');
  });
});

/** The real facilitator behind a pass-through that runs `onVerify` once /verify has answered, before the service hears it. */
async function facilitatorWith(onVerify: () => Promise<void>): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = request.method === 'POST' ? Buffer.concat(chunks) : undefined;
    const answer = await fetch(`${world.facilitator.url}${request.url}`, { method: request.method, headers: { 'content-type': 'application/json' }, body });
    const text = await answer.text();
    if (request.url === '/verify') await onVerify();
    response.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

describe('a store that stops taking writes between verification and settlement', () => {
  it('settles nothing when the verdict cannot be kept for the payer first: 503 store_unavailable, no receipt, no charge; the payment buys it later', async () => {
    const admin = new Redis(redis.url);
    // Redis refuses SET to the service from the moment the payment verified: the verdict cannot be kept.
    let refuseWrites = false;
    let facilitator: Awaited<ReturnType<typeof facilitatorWith>> | undefined;
    let service: TestService | undefined;
    try {
      facilitator = await facilitatorWith(async () => {
        if (refuseWrites) await admin.call('ACL', 'SETUSER', 'default', '-set');
      });
      service = await world.service(onRedis(), facilitator.url);
      const payer = world.devnet.wallets[0];
      const body = world.trade({ amount: 1 });
      // The wallet's facts of the day are read once, so the evaluation itself writes nothing more.
      assert.equal((await postJson(`${service.base}/api/v1/analyze/free`, body)).status, 200);
      const payment = await signPayment(payer.privateKey, await world.challenge(service.base));
      const before = await world.usdc(payer.address);
      refuseWrites = true;
      const answer = await payWith(service.base, body, payment);
      await admin.call('ACL', 'SETUSER', 'default', '+set');
      refuseWrites = false;
      assert.equal(answer.status, 503, answer.text);
      assert.equal(answer.json.code, 'store_unavailable', answer.text);
      assert.match(answer.json.error, /could not be kept for this payment before settling it .*so it was not settled: nothing was charged/);
      assert.equal(answer.headers.get('payment-response'), null, 'no receipt');
      assert.equal(await world.usdc(payer.address), before, 'nothing charged');

      const bought = await payWith(service.base, body, payment);
      assert.equal(bought.status, 200, bought.text);
      assert.equal(before - (await world.usdc(payer.address)), PRICE, 'charged once, for the verdict it received');
    } finally {
      await admin.call('ACL', 'SETUSER', 'default', '+set');
      admin.disconnect();
      await service?.stop();
      await facilitator?.close();
    }
  });
});
