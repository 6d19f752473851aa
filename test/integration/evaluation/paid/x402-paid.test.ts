// The paid channel end to end: a real devnet, a real facilitator (@x402/core + @x402/evm), the stock x402 client.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http';
import { wrapFetchWithPayment } from '@x402/fetch';
import type { PaymentRequirementsV1 } from '@x402/core/types';
import { parseEventLogs, type Address, type Hex, type PublicClient } from 'viem';
import type { Devnet } from '../../../../src/tools/devnet/devnet.js';
import { freePort } from '../../../../src/tools/devnet/free-port.js';
import { ANVIL_DEV_ACCOUNTS } from '../../../../src/tools/devnet/wallets.js';
import { stablecoinAbi } from '../../../support/devnet-abis.js';
import { walletClientFor } from '../../../support/devnet-helpers.js';
import { PaidWorld, PRICE, payWith, walletRecords } from '../../../support/paid-world.js';
import { getJson, postJson, send, startTestService, type TestService } from '../../../support/service.js';
import { CountingProxy } from '../../../support/chain-support.js';
import { useTempDirs } from '../../../support/temp-dirs.js';
import { waitUntil } from '../../../support/wait-until.js';
import { freshNonce, signPayment, stockClient } from '../../../support/x402-payer.js';

const execFileAsync = promisify(execFile);
const tempDir = useTempDirs('x402-paid-');
let world: PaidWorld;
let devnet: Devnet;
let chain: PublicClient;
let service: TestService;

before(async () => {
  world = await PaidWorld.start(await tempDir());
  ({ devnet, chain } = world);
  // Tier 2's window is 3 here, so three free evaluations fill it for the 429 case.
  service = await world.service({ RATE_LIMIT_WALLET_TIER2: '3' });
});
after(async () => {
  await service?.stop();
  await world?.close();
});

/** Demo wallets A-D (1,000 USDC each; A holds no service tokens), read once the devnet is up. */
const demo = (index: number) => ({ get address() { return devnet.wallets[index].address; }, get privateKey() { return devnet.wallets[index].privateKey; } });
const [walletA, walletB, walletC, walletD] = [0, 1, 2, 3].map(demo);

const trade = (overrides: Record<string, unknown> = {}) => world.trade(overrides);
const challenge = (base = service.base) => world.challenge(base);
const usdc = (holder: string) => world.usdc(holder);
const paidUrl = () => `${service.base}/api/x402/analyze`;
const pay = (body: Record<string, unknown>, payment: string, header = 'x-payment') => payWith(service.base, body, payment, header);

interface SignedAuthorization {
  signature: Hex;
  authorization: Record<'from' | 'to' | 'value' | 'validAfter' | 'validBefore' | 'nonce', string>;
}

/** Someone other than the facilitator (anvil account 7) submits the authorization to the token; the receipt's status. */
async function submitElsewhere({ signature, authorization: a }: SignedAuthorization): Promise<string> {
  const relayer = walletClientFor(devnet, ANVIL_DEV_ACCOUNTS[7].privateKey);
  const hash = await relayer.writeContract({
    address: devnet.contracts.stablecoin, abi: stablecoinAbi, functionName: 'transferWithAuthorization',
    args: [a.from as Address, a.to as Address, BigInt(a.value), BigInt(a.validAfter), BigInt(a.validBefore), a.nonce as Hex, signature],
  });
  return (await chain.waitForTransactionReceipt({ hash })).status;
}

describe('the x402 challenge', () => {
  it('answers an unpaid request with 402, the v1 challenge in the body and the same terms as an x402 v2 PaymentRequired in PAYMENT-REQUIRED', async () => {
    const answer = await postJson(paidUrl(), trade());
    assert.equal(answer.status, 402);
    assert.equal(answer.json.x402Version, 1);
    assert.match(answer.json.error, /X-PAYMENT|PAYMENT-SIGNATURE/);
    const [requirements] = answer.json.accepts;
    assert.equal(answer.json.accepts.length, 1);
    assert.deepEqual(
      { ...requirements, description: typeof requirements.description, outputSchema: typeof requirements.outputSchema },
      {
        scheme: 'exact', network: 'eip155:4663', maxAmountRequired: '100000', resource: paidUrl(), description: 'string',
        mimeType: 'application/json', outputSchema: 'object', payTo: devnet.treasury, maxTimeoutSeconds: 300,
        asset: devnet.contracts.stablecoin, extra: { name: 'USD Coin', version: '2' },
      },
    );
    assert.ok(requirements.outputSchema.output.properties.decision, 'the output schema describes the Verdict');
    assert.equal(requirements.outputSchema.input.method, 'POST');
    // What a stock v2 client reads first: v2 field names, the same terms.
    assert.deepEqual(decodePaymentRequiredHeader(answer.headers.get('payment-required')!), {
      x402Version: 2, error: answer.json.error,
      resource: { url: paidUrl(), description: requirements.description, mimeType: 'application/json' },
      accepts: [{
        scheme: 'exact', network: 'eip155:4663', asset: devnet.contracts.stablecoin, amount: '100000', payTo: devnet.treasury,
        maxTimeoutSeconds: 300, extra: { name: 'USD Coin', version: '2' },
      }],
    });
  });

  it('publishes the same terms in /.well-known/x402.json for the REST endpoint and the MCP tool', async () => {
    const [manifest, terms] = [(await getJson(`${service.base}/.well-known/x402.json`)).json, await challenge()];
    assert.deepEqual([manifest.x402Version, manifest.available], [1, true]);
    assert.deepEqual(manifest.resources.map((resource: { type: string }) => resource.type), ['http', 'mcp-tool']);
    for (const resource of manifest.resources) {
      assert.equal(resource.tierGranted, 2);
      assert.deepEqual(resource.accepts, [terms], 'the manifest and the 402 challenge say the same');
    }
    assert.equal(manifest.resources[0].resource, paidUrl());
  });

  it('answers GET with 405 and Allow: POST', async () => {
    const answer = await send('GET', paidUrl());
    assert.equal(answer.status, 405);
    assert.equal(answer.headers.get('allow'), 'POST');
  });

  it('checks the body before the payment: a 422 leaves the payment able to buy a verdict', async () => {
    const terms = await challenge();
    const payment = await signPayment(walletB.privateKey, terms);
    const bad = await pay(trade({ side: 'hold' }), payment);
    assert.equal(bad.status, 422, bad.text);
    assert.equal(bad.headers.get('payment-response'), null);
    const good = await pay(trade(), payment);
    assert.equal(good.status, 200, good.text);
  });
});

describe('paying with a real x402 client', () => {
  it('a stock @x402/fetch client pays once in PAYMENT-SIGNATURE and gets a Tier 2 verdict with the settlement receipt; the transfer is on chain', async () => {
    // Wallet A holds no service tokens: on REST it is Tier 1, paid it is Tier 2.
    const [payerBefore, treasuryBefore] = [await usdc(walletA.address), await usdc(devnet.treasury)];
    const body = trade();
    const sent: Headers[] = [];
    // @x402/fetch hands its fetch a Request; its headers are what went out.
    const watched = (input: RequestInfo | URL, init?: RequestInit) => {
      sent.push(input instanceof Request ? input.headers : new Headers(init?.headers));
      return fetch(input, init);
    };
    const paying = wrapFetchWithPayment(watched, stockClient(walletA.privateKey, devnet.contracts.stablecoin));
    const answer = await paying(paidUrl(), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const verdict = (await answer.json()) as Record<string, unknown>;
    assert.equal(answer.status, 200, JSON.stringify(verdict));
    assert.deepEqual([verdict.decision, verdict.tier, verdict.max_trade_usd], ['allow', 2, 25_000]);
    assert.ok((verdict.calculated_notional_usd as number) > 5_000, 'over the Tier 1 ceiling');
    const receipt = decodePaymentResponseHeader(answer.headers.get('payment-response')!);
    assert.deepEqual(decodePaymentResponseHeader(answer.headers.get('x-payment-response')!), receipt);
    const paidWith = sent.at(-1)!;
    assert.deepEqual([paidWith.get('x-payment'), JSON.parse(Buffer.from(paidWith.get('payment-signature')!, 'base64').toString()).x402Version], [null, 2]);
    assert.deepEqual({ ...receipt, transaction: undefined }, { success: true, transaction: undefined, network: 'eip155:4663', payer: walletA.address });
    assert.match(answer.headers.get('access-control-expose-headers')!, /PAYMENT-RESPONSE.*X-PAYMENT-RESPONSE/);
    assert.equal(payerBefore - (await usdc(walletA.address)), PRICE);
    assert.equal((await usdc(devnet.treasury)) - treasuryBefore, PRICE);
    const mined = await chain.getTransactionReceipt({ hash: receipt.transaction as Hex });
    assert.equal(mined.status, 'success');
    const transfers = parseEventLogs({ abi: TRANSFER_ABI, logs: mined.logs, eventName: 'Transfer' });
    assert.deepEqual(transfers.map((log) => [log.args.from, log.args.to, log.args.value]), [[walletA.address, devnet.treasury, PRICE]]);
    const [record] = await walletRecords(service.base, String(body.wallet));
    assert.equal(record.seq, verdict.audit_seq);
    assert.equal(record.channel, 'x402');
    const payment = record.payment as Record<string, string>;
    assert.deepEqual(
      { ...payment, nonce: /^0x[0-9a-f]{64}$/i.test(payment.nonce) },
      {
        payer: walletA.address.toLowerCase(), nonce: true, transaction: receipt.transaction, network: 'eip155:4663',
        asset: devnet.contracts.stablecoin, amount: '100000', pay_to: devnet.treasury,
      },
    );
    const verified = await getJson(`${service.base}/api/v1/audit/verify/${String(body.wallet)}`);
    assert.equal(verified.json.healthy, true, 'a record naming its payment verifies like any other');
  });

  it('takes the v2 PAYMENT-SIGNATURE header as the same payment', async () => {
    const payment = await signPayment(walletB.privateKey, await challenge(), { version: 2 });
    const before = await usdc(walletB.address);
    const answer = await pay(trade(), payment, 'payment-signature');
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.json.tier, 2);
    assert.equal(before - (await usdc(walletB.address)), PRICE);
  });
});

describe('one payment, one verdict', () => {
  it('replays the saved verdict for the same body, with no second charge, and refuses it for another body', async () => {
    const payment = await signPayment(walletC.privateKey, await challenge());
    const body = trade();
    const before = await usdc(walletC.address);
    const first = await pay(body, payment);
    assert.equal(first.status, 200, first.text);
    const again = await pay(body, payment, 'payment-signature');
    assert.equal(again.status, 200, again.text);
    assert.equal(again.json.audit_seq, first.json.audit_seq);
    assert.equal(again.headers.get('payment-response'), first.headers.get('payment-response'));
    const other = await pay(trade(), payment);
    assert.equal(other.status, 402);
    assert.equal(other.json.reason, 'payment_used');
    assert.match(other.json.error, /already bought a verdict/);
    assert.equal(other.json.accepts[0].maxAmountRequired, '100000', 'the refusal carries the challenge again');
    assert.equal(before - (await usdc(walletC.address)), PRICE, 'charged exactly once');
    assert.equal((await walletRecords(service.base, String(body.wallet))).length, 1);
  });

  it('settles twenty simultaneous requests carrying one payment once, with one audit record', async () => {
    const payment = await signPayment(walletD.privateKey, await challenge());
    const body = trade();
    const before = await usdc(walletD.address);
    const answers = await Promise.all(Array.from({ length: 20 }, () => pay(body, payment)));
    const verdicts = answers.filter((answer) => answer.status === 200);
    assert.ok(verdicts.length >= 1);
    assert.equal(new Set(verdicts.map((answer) => answer.json.audit_seq)).size, 1, 'every verdict is the one saved');
    for (const refused of answers.filter((answer) => answer.status !== 200)) {
      assert.equal(refused.status, 402, refused.text);
      assert.equal(refused.json.reason, 'payment_in_progress');
    }
    assert.equal(before - (await usdc(walletD.address)), PRICE);
    assert.equal((await walletRecords(service.base, String(body.wallet))).length, 1);
  });

  it('a retry that signs a fresh authorization with the same request_id and body gets the saved verdict, uncharged', async () => {
    const body = trade({ request_id: 'paid-retry-1' });
    const first = await pay(body, await signPayment(walletC.privateKey, await challenge()));
    assert.equal(first.status, 200, first.text);
    const before = await usdc(walletC.address);
    const retry = await pay(body, await signPayment(walletC.privateKey, await challenge()));
    assert.equal(retry.status, 200, retry.text);
    assert.equal(retry.json.audit_seq, first.json.audit_seq);
    assert.equal(retry.headers.get('payment-response'), null, 'no receipt: nothing was settled');
    assert.equal(await usdc(walletC.address), before);
  });

  it('never touches the payment on a 429: the same payment then buys a verdict for another wallet', async () => {
    const full = trade();
    for (let i = 0; i < 3; i++) assert.equal((await postJson(`${service.base}/api/v1/analyze/free`, { ...full, amount: 1 })).status, 200);
    const payment = await signPayment(walletB.privateKey, await challenge());
    const before = await usdc(walletB.address);
    const limited = await pay(full, payment);
    assert.equal(limited.status, 429, limited.text);
    assert.equal(limited.headers.get('payment-response'), null);
    assert.equal(await usdc(walletB.address), before, 'nothing charged for a 429');
    const bought = await pay(trade(), payment);
    assert.equal(bought.status, 200, bought.text);
    assert.equal(before - (await usdc(walletB.address)), PRICE);
  });
});

const TRANSFER_ABI = [
  {
    type: 'event', name: 'Transfer', anonymous: false,
    inputs: [
      { name: 'from', type: 'address', indexed: true },
      { name: 'to', type: 'address', indexed: true },
      { name: 'value', type: 'uint256', indexed: false },
    ],
  },
] as const;

describe('refusals: a 402 with the challenge again and the reason, nothing charged', () => {
  const now = () => BigInt(Math.floor(Date.now() / 1000));
  /** Anvil account 6 holds ether but none of the stablecoin. */
  const unfunded = ANVIL_DEV_ACCOUNTS[6].privateKey;
  const cases: { reason: string; payment: (terms: PaymentRequirementsV1) => Promise<string> | string }[] = [
    { reason: 'payment_malformed', payment: () => 'not base64 json!' },
    { reason: 'payment_malformed', payment: () => Buffer.from(JSON.stringify({ x402Version: 1, scheme: 'exact', network: 'eip155:4663', payload: {} })).toString('base64') },
    { reason: 'unsupported_version', payment: (terms) => signPayment(walletB.privateKey, terms, { envelope: { x402Version: 3 } }) },
    { reason: 'unsupported_scheme', payment: (terms) => signPayment(walletB.privateKey, terms, { envelope: { scheme: 'upto' } }) },
    { reason: 'wrong_network', payment: (terms) => signPayment(walletB.privateKey, terms, { envelope: { network: 'eip155:8453' } }) },
    { reason: 'wrong_asset', payment: (terms) => signPayment(walletB.privateKey, terms, { version: 2, envelope: { asset: devnet.contracts.serviceToken } }) },
    { reason: 'wrong_recipient', payment: (terms) => signPayment(walletB.privateKey, terms, { authorization: { to: walletC.address } }) },
    { reason: 'wrong_amount', payment: (terms) => signPayment(walletB.privateKey, terms, { authorization: { value: PRICE - 1n } }) },
    { reason: 'wrong_amount', payment: (terms) => signPayment(walletB.privateKey, terms, { authorization: { value: PRICE * 10n } }) },
    { reason: 'authorization_expired', payment: (terms) => signPayment(walletB.privateKey, terms, { authorization: { validBefore: now() - 60n } }) },
    { reason: 'authorization_not_yet_valid', payment: (terms) => signPayment(walletB.privateKey, terms, { authorization: { validAfter: now() + 3600n } }) },
    // Ten years instead of the challenge's 300 s: spendable by whoever holds it long after this request.
    { reason: 'authorization_window_too_long', payment: (terms) => signPayment(walletB.privateKey, terms, { authorization: { validBefore: now() + 10n * 365n * 86_400n } }) },
    { reason: 'authorization_window_too_long', payment: (terms) => signPayment(walletB.privateKey, terms, { version: 2, authorization: { validBefore: now() + 300n + 90n } }) },
    { reason: 'invalid_signature', payment: (terms) => signPayment(walletB.privateKey, terms, { signWith: walletC.privateKey }) },
    { reason: 'invalid_signature', payment: (terms) => signPayment(walletB.privateKey, terms, { chainId: 1 }) },
    { reason: 'insufficient_funds', payment: (terms) => signPayment(unfunded, terms) },
  ];

  for (const { reason, payment } of cases) {
    it(`refuses ${reason}`, async () => {
      const terms = await challenge();
      const before = await usdc(walletB.address);
      const answer = await pay(trade(), await payment(terms));
      assert.equal(answer.status, 402, answer.text);
      assert.equal(answer.json.reason, reason, answer.json.error);
      assert.ok(answer.json.error.startsWith(`${reason}: `));
      const header = decodePaymentRequiredHeader(answer.headers.get('payment-required')!);
      assert.deepEqual([header.x402Version, header.error, header.accepts[0].amount], [2, answer.json.error, '100000']);
      assert.equal(answer.headers.get('payment-response'), null);
      assert.equal(await usdc(walletB.address), before);
    });
  }

  it('refuses an authorization already used on chain', async () => {
    const payment = await signPayment(walletB.privateKey, await challenge(), { authorization: { nonce: freshNonce() } });
    // Someone submits the same authorization straight to the token first.
    const { payload } = JSON.parse(Buffer.from(payment, 'base64').toString()) as { payload: SignedAuthorization };
    assert.equal(await submitElsewhere(payload), 'success');
    const answer = await pay(trade(), payment);
    assert.equal(answer.status, 402, answer.text);
    assert.equal(answer.json.reason, 'authorization_used');
  });

  it('refuses an authorization not yet valid by chain time, though the clock has passed its validAfter', async () => {
    // Chain time stands still (blocks keep coming, all at one timestamp) while the clock moves on: a chain behind the clock.
    await chain.request({ method: 'anvil_setBlockTimestampInterval' as never, params: [0] as never });
    try {
      const stood = (await chain.getBlock({ blockTag: 'latest' })).timestamp;
      await waitUntil(() => Date.now() / 1000 >= Number(stood) + 2, 'the clock passes the chain by two seconds');
      const before = await usdc(walletB.address);
      const answer = await pay(trade(), await signPayment(walletB.privateKey, await challenge(), { authorization: { validAfter: stood + 1n } }));
      assert.equal(answer.status, 402, answer.text);
      assert.equal(answer.json.reason, 'authorization_not_yet_valid', answer.json.error);
      assert.match(answer.json.error, new RegExp(`validAfter "${stood + 1n}", the latest block is at ${stood}`));
      assert.equal(await usdc(walletB.address), before);
    } finally {
      await chain.request({ method: 'anvil_removeBlockTimestampInterval' as never });
    }
  });

  it('refuses two different payments in X-PAYMENT and PAYMENT-SIGNATURE', async () => {
    const terms = await challenge();
    const [one, two] = [await signPayment(walletB.privateKey, terms), await signPayment(walletB.privateKey, terms)];
    const answer = await postJson(paidUrl(), trade(), { 'x-payment': one, 'payment-signature': two });
    assert.equal(answer.status, 402);
    assert.equal(answer.json.reason, 'payment_malformed');
  });
});

describe('a facilitator that is down or failing', () => {
  let failing: Server;
  before(async () => {
    failing = createServer((_request, response) => response.writeHead(500, { 'content-type': 'text/plain' }).end('upstream exploded'));
    await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
  });
  after(() => new Promise<void>((resolve) => failing.close(() => resolve())));

  for (const [label, url] of [
    ['unreachable', () => 'http://127.0.0.1:9'],
    ['answering 500', () => `http://127.0.0.1:${(failing.address() as AddressInfo).port}`],
  ] as const) {
    it(`answers 503 with detail and error, releases no verdict and charges nothing when ${label}`, async () => {
      const down = await world.service({}, url());
      try {
        const payment = await signPayment(walletB.privateKey, await challenge(down.base));
        const before = await usdc(walletB.address);
        const body = trade();
        const answer = await payWith(down.base, body, payment);
        assert.equal(answer.status, 503, answer.text);
        assert.equal(answer.json.code, 'facilitator_unavailable');
        assert.match(answer.json.detail, /facilitator did not answer.*nothing was charged/);
        assert.equal(answer.json.error, answer.json.detail);
        assert.equal(answer.json.decision, undefined, 'no verdict');
        assert.equal(await usdc(walletB.address), before);
        assert.deepEqual(await walletRecords(down.base, String(body.wallet)), []);
      } finally {
        await down.stop();
      }
    });
  }
});

describe('a settlement whose answer is lost', () => {
  /**
   * A facilitator in front of the real one that passes /verify through and, for /settle,
   * either forwards it and then drops the answer (the transfer lands, the service never hears)
   * or drops it unsent (nothing lands).
   */
  async function lossyFacilitator(mode: 'forward-then-drop' | 'drop' | 'front-run'): Promise<{ url: string; close(): Promise<void> }> {
    const server = createServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const forward = () => fetch(`${world.facilitator.url}${request.url}`, { method: request.method, headers: { 'content-type': 'application/json' }, body: request.method === 'POST' ? Buffer.concat(chunks) : undefined });
      if (request.url !== '/settle') {
        const answer = await forward();
        response.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
        return;
      }
      if (mode === 'front-run') {
        // Someone submits the same authorization straight to the token between /verify and /settle.
        const { paymentPayload } = JSON.parse(Buffer.concat(chunks).toString()) as { paymentPayload: { payload: SignedAuthorization } };
        await submitElsewhere(paymentPayload.payload);
        const answer = await forward();
        response.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
        return;
      }
      if (mode === 'forward-then-drop') await (await forward()).text();
      response.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
    };
  }

  /** A paid service whose facilitator is `mode`, for the length of `test`. */
  async function behind(mode: Parameters<typeof lossyFacilitator>[0], test: (svc: TestService) => Promise<void>): Promise<void> {
    const lossy = await lossyFacilitator(mode);
    const svc = await world.service({}, lossy.url);
    try {
      await test(svc);
    } finally {
      await svc.stop();
      await lossy.close();
    }
  }

  it('finds the transfer on chain when it landed, and releases the verdict with that transaction', () => behind('forward-then-drop', async (svc) => {
    const before = await usdc(walletC.address);
    const answer = await payWith(svc.base, trade(), await signPayment(walletC.privateKey, await challenge(svc.base)));
    assert.equal(answer.status, 200, answer.text);
    const receipt = decodePaymentResponseHeader(answer.headers.get('payment-response')!);
    assert.equal((await chain.getTransactionReceipt({ hash: receipt.transaction as Hex })).status, 'success');
    assert.equal(before - (await usdc(walletC.address)), PRICE);
    assert.ok(svc.logs.some((line) => line.includes('the chain shows the transfer')));
  }));

  it('takes a transfer someone else submitted between /verify and /settle as the settlement', () => behind('front-run', async (svc) => {
    const before = await usdc(walletC.address);
    const answer = await payWith(svc.base, trade(), await signPayment(walletC.privateKey, await challenge(svc.base)));
    assert.equal(answer.status, 200, answer.text);
    const receipt = decodePaymentResponseHeader(answer.headers.get('payment-response')!);
    assert.equal((await chain.getTransactionReceipt({ hash: receipt.transaction as Hex })).from.toLowerCase(), ANVIL_DEV_ACCOUNTS[7].address.toLowerCase(), 'the front-runner\'s transaction');
    assert.equal(before - (await usdc(walletC.address)), PRICE, 'charged once');
  }));

  it('answers 503 and charges nothing when nothing landed; the payment still buys a verdict elsewhere', () => behind('drop', async (svc) => {
    const payment = await signPayment(walletC.privateKey, await challenge(svc.base));
    const before = await usdc(walletC.address);
    const body = trade();
    const answer = await payWith(svc.base, body, payment);
    assert.equal(answer.status, 503, answer.text);
    assert.equal(answer.json.code, 'facilitator_unavailable');
    assert.equal(await usdc(walletC.address), before);
    assert.deepEqual(await walletRecords(svc.base, String(body.wallet)), [], 'nothing recorded');
    assert.equal((await pay(trade(), payment)).status, 200);
  }));
});

describe('a chain node that dies after start', () => {
  it('makes the paid evaluation an error verdict (503, chain_unavailable) that charges nothing', async () => {
    const proxy = await CountingProxy.start(devnet.rpcUrl);
    const fragile = await startTestService({
      RPC_URL: proxy.url, REGISTRY_FILE: world.registryFile, PAY_TO_ADDRESS: devnet.treasury, FACILITATOR_URL: world.facilitator.url,
    });
    try {
      const payment = await signPayment(walletB.privateKey, await challenge(fragile.base));
      await proxy.close();
      const before = await usdc(walletB.address);
      const answer = await payWith(fragile.base, trade(), payment);
      assert.equal(answer.status, 503, answer.text);
      assert.deepEqual([answer.json.decision, answer.json.code, answer.json.audit_seq], ['deny', 'chain_unavailable', null]);
      assert.match(answer.json.reasons[0], /no verdict was produced, do not trade/);
      assert.equal(answer.headers.get('payment-response'), null);
      assert.equal(await usdc(walletB.address), before, 'no verdict, no charge');
      // The payment was not spent: it still buys a verdict where the chain answers.
      const bought = await payWith(service.base, trade(), payment);
      assert.equal(bought.status, 200, bought.text);
    } finally {
      await fragile.stop();
    }
  });
});

describe('npm run facilitator', () => {
  const cli = () => fileURLToPath(new URL('../../../../src/tools/facilitator/cli.js', import.meta.url));

  it('serves the exact scheme for the node\'s chain on its own, until a signal', async () => {
    const child = spawn(process.execPath, [cli()], {
      env: { ...process.env, RPC_URL: devnet.rpcUrl, FACILITATOR_PRIVATE_KEY: ANVIL_DEV_ACCOUNTS[7].privateKey, FACILITATOR_PORT: '0' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let seen = '';
        child.stderr.on('data', (chunk: Buffer) => {
          seen += chunk.toString();
          const match = /listening on (http:\/\/\S+):/.exec(seen);
          if (match) resolve(match[1]);
        });
        child.once('exit', (code) => reject(new Error(`exited ${code}: ${seen}`)));
      });
      const supported = (await (await fetch(`${url}/supported`)).json()) as { kinds: { x402Version: number; scheme: string; network: string }[] };
      assert.ok(supported.kinds.some((kind) => kind.x402Version === 2 && kind.scheme === 'exact' && kind.network === 'eip155:4663'), JSON.stringify(supported));
      assert.equal((await fetch(`${url}/verify`)).status, 405);
      assert.equal((await fetch(`${url}/verify`, { method: 'POST', body: '{"nope":1}' })).status, 400);
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('refuses to start without a node or a key, saying which', async () => {
    const run = await execFileAsync(process.execPath, [cli()], { env: { ...process.env, RPC_URL: devnet.rpcUrl, FACILITATOR_PRIVATE_KEY: '' } }).catch((error: unknown) => error as { code: number; stderr: string });
    assert.equal((run as { code: number }).code, 2);
    assert.match((run as { stderr: string }).stderr, /FACILITATOR_PRIVATE_KEY must be 0x and 64 hex digits/);
  });

  it('says in one line that the node did not answer, without the URL\'s credentials or path', async () => {
    const dead = `http://user:secret@127.0.0.1:${await freePort()}/key-in-path`;
    const run = await execFileAsync(process.execPath, [cli()], { env: { ...process.env, RPC_URL: dead, FACILITATOR_PRIVATE_KEY: ANVIL_DEV_ACCOUNTS[7].privateKey } })
      .catch((error: unknown) => error as { code: number; stderr: string });
    assert.equal((run as { code: number }).code, 1);
    const [line, ...rest] = (run as { stderr: string }).stderr.trim().split('\n');
    assert.deepEqual(rest, []);
    assert.match(line, /^facilitator failed to start: reading the chain id from RPC_URL failed: HTTP request failed: fetch failed URL: http:\/\/127\.0\.0\.1:\d+ /);
    assert.doesNotMatch(line, /secret|key-in-path/);
  });
});

describe('the client example of docs/x402.md', () => {
  it('examples/pay-per-call.mjs pays for a verdict against a running service', async () => {
    const root = fileURLToPath(new URL('../../../../../', import.meta.url));
    const run = await execFileAsync(process.execPath, ['examples/pay-per-call.mjs'], {
      cwd: root, env: { ...process.env, BASE_URL: service.base, PAYER_KEY: walletD.privateKey },
    });
    assert.match(run.stdout, /^200 \{/);
    assert.match(run.stdout, /decision: 'allow'/);
    assert.match(run.stdout, /settled: \{\s+success: true/);
  });
});
