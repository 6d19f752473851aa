// Paid, and a log that cannot append (ARCHITECTURE.md "Paid evaluation"): nothing is charged for a verdict
// the log cannot take, and a verdict settled in a race with a filling disk is recorded on the payer's retry.
import assert from 'node:assert/strict';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { decodePaymentResponseHeader } from '@x402/core/http';
import { callMcpTool } from '../../../support/mcp-client.js';
import { useSmallDisks } from '../../../support/full-disk.js';
import { settlingFacilitator, type SettlingFacilitator } from '../../../support/settling-facilitator.js';
import { PaidWorld, PRICE, payWith, walletRecords } from '../../../support/paid-world.js';
import { getJson, type TestService } from '../../../support/service.js';
import { useTempDirs } from '../../../support/temp-dirs.js';
import { pollUntil, waitUntil } from '../../../support/wait-until.js';
import { signPayment } from '../../../support/x402-payer.js';

const tempDir = useTempDirs('x402-audit-full-');
let world: PaidWorld;
let disk: string;
let service: TestService;
let facilitator: SettlingFacilitator;

/** Writes until the filesystem is full; the file is removed to give the room back. */
function fill(): string {
  const path = join(disk, 'filler');
  const fd = openSync(path, 'a');
  for (const size of [1 << 20, 4096, 1]) {
    const chunk = Buffer.alloc(size);
    try {
      for (;;) writeSync(fd, chunk);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
    }
  }
  closeSync(fd);
  return path;
}

/**
 * Fills the disk, then sends free evaluations until one fails: the log's files may still have room
 * in their last pages, and only an append that needs a new one finds the disk full.
 */
async function exhaustDisk(): Promise<void> {
  fill();
  for (let i = 0; i < 100; i++) {
    const answer = await fetch(`${service.base}/api/v1/analyze/free`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(world.trade({ amount: 1 })),
    });
    if (answer.status === 503) return;
  }
  throw new Error('the log still appends on a full disk');
}

let dataDir: string;

before(async () => {
  world = await PaidWorld.start(await tempDir());
  // The audit log on a small filesystem of its own, so the test can fill it without touching the
  // machine's, while the store (and the verdict it keeps for the payer) stays on the other disk.
  dataDir = mkdtempSync(join(tmpdir(), 'x402-audit-full-data-'));
  disk = join(dataDir, 'audit');
  mkdirSync(disk);
  disks.mount(disk, '24m');
  facilitator = await settlingFacilitator(world.facilitator.url);
  service = await world.service({ DATA_DIR: dataDir }, facilitator.url);
});
after(async () => {
  await service?.stop();
  await facilitator?.close();
  await world?.close();
});
// After the service stops (a busy disk cannot be unmounted), before its folder goes.
const disks = useSmallDisks();
after(() => {
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const usdc = (holder: string) => world.usdc(holder);

/** The same authorization (payer, nonce, window) with a signature by someone else: what anyone who saw the payment can send. */
async function forged(payment: string): Promise<string> {
  const { authorization } = (JSON.parse(Buffer.from(payment, 'base64').toString()) as { payload: { authorization: Record<string, string> } }).payload;
  const payer = world.devnet.wallets.find((wallet) => wallet.address === authorization.from)!;
  const forger = world.devnet.wallets.find((wallet) => wallet.address !== authorization.from)!;
  return signPayment(payer.privateKey, await world.challenge(service.base), {
    signWith: forger.privateKey,
    authorization: { validAfter: BigInt(authorization.validAfter), validBefore: BigInt(authorization.validBefore), nonce: authorization.nonce as `0x${string}` },
  });
}

/** A forged payment is refused as invalid_signature with the challenge again: no verdict, no receipt, no record. */
async function assertForgedRefused(body: Record<string, unknown>, payment: string): Promise<void> {
  const answer = await payWith(service.base, body, await forged(payment));
  assert.equal(answer.status, 402, answer.text);
  assert.equal(answer.json.reason, 'invalid_signature', answer.json.error);
  assert.equal(answer.json.decision, undefined, 'no verdict');
  assert.equal(answer.headers.get('payment-response'), null, 'no receipt');
}

/** Frees the disk and waits until the log takes appends again (a free evaluation is recorded). */
async function freeDisk(path: string): Promise<void> {
  rmSync(path);
  await waitUntil(async () => (await fetch(`${service.base}/api/v1/analyze/free`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(world.trade({ amount: 1 })),
  })).status === 200, 'the log takes appends again once the disk has room', 15_000, 100);
}

describe('a paid call while the audit log cannot append', () => {
  it('answers 503 audit_unavailable and charges nothing, on REST and on MCP', async () => {
    const filler = fill();
    try {
      // The log looks at its disk once a second; a settlement inside that second is the race the next test covers.
      await pollUntil('the audit log reported down', async () => (await getJson(`${service.base}/status.json`)).json,
        (status) => status.components.audit.status === 'down', 10_000, 100);
      const payer = world.devnet.wallets[1];
      const before = await usdc(payer.address);
      const answer = await payWith(service.base, world.trade(), await signPayment(payer.privateKey, await world.challenge(service.base)));
      assert.equal(answer.status, 503, answer.text);
      assert.equal(answer.json.code, 'audit_unavailable');
      assert.equal(answer.headers.get('payment-response'), null, 'no receipt: nothing settled');
      const viaMcp = await callMcpTool(service.base, 'evaluate_trade_paid', {
        ...world.trade(), payment_proof: await signPayment(payer.privateKey, await world.challenge(service.base)),
      });
      assert.equal(viaMcp.isError, true);
      assert.equal(viaMcp.structured.code, 'audit_unavailable');
      assert.equal(await usdc(payer.address), before, 'nothing charged');
    } finally {
      await freeDisk(filler);
    }
  });

  it('keeps a verdict settled in a race with the disk, and records it on the retry with the same payment, charged once', async () => {
    const payer = world.devnet.wallets[2];
    const body = world.trade({ amount: 1 });
    const payment = await signPayment(payer.privateKey, await world.challenge(service.base));
    const before = await usdc(payer.address);
    facilitator.beforeNextSettle(exhaustDisk);
    const first = await payWith(service.base, body, payment);
    assert.equal(first.status, 503, first.text);
    assert.match(first.json.error, /send the same request with the same payment again/);
    const receipt = decodePaymentResponseHeader(first.headers.get('payment-response')!);
    assert.equal(before - (await usdc(payer.address)), PRICE, 'settled once, before the append failed');

    // Still no room: the retry is refused, and nothing more is charged.
    const filler = join(disk, 'filler');
    const early = await payWith(service.base, body, payment);
    assert.equal(early.status, 503, early.text);
    assert.equal(early.headers.get('payment-response'), null);

    await freeDisk(filler);
    // The kept verdict is found by payer and nonce, which the payment shows to whoever sees it: only the payer's signature redeems it.
    await assertForgedRefused(body, payment);
    assert.deepEqual(await walletRecords(service.base, String(body.wallet)), [], 'nothing recorded for the forgery');
    const redeemed = await payWith(service.base, body, payment);
    assert.equal(redeemed.status, 200, redeemed.text);
    assert.equal(decodePaymentResponseHeader(redeemed.headers.get('payment-response')!).transaction, receipt.transaction);
    assert.equal(before - (await usdc(payer.address)), PRICE, 'never charged twice');
    const records = await walletRecords(service.base, String(body.wallet));
    assert.equal(records.length, 1);
    assert.equal((records[0].payment as { transaction: string }).transaction, receipt.transaction);
    assert.equal(records[0].seq, redeemed.json.audit_seq);
    // Once recorded, the same payment replays that verdict and records nothing more.
    const again = await payWith(service.base, body, payment);
    assert.equal(again.json.audit_seq, redeemed.json.audit_seq);
    assert.equal((await walletRecords(service.base, String(body.wallet))).length, 1);
    await assertForgedRefused(body, payment);
  });
});
