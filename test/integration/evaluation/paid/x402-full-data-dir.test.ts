// Paid, with the whole DATA_DIR (LMDB store and file audit log, the `npm start` layout) on one small disk
// that fills up (issue 39; ARCHITECTURE.md "Paid evaluation"): while /status.json reports the disk's
// components down, a paying client is refused before settlement and keeps its USDC; once the disk has
// room again the same service, not restarted, sells a verdict and charges it once. A verdict settled as the
// disk fills is kept for the payer's retry although the store that keeps it shares the disk. A restart on the full
// disk listens and refuses paid calls before settlement, and sells once the disk frees (ARCHITECTURE.md "A full disk at start"); so does
// the very first start on an empty DATA_DIR, whose generated keys and epoch.json wait for room.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { decodePaymentResponseHeader } from '@x402/core/http';
import { settlingFacilitator, type SettlingFacilitator } from '../../../support/settling-facilitator.js';
import { PaidWorld, PRICE, payWith, walletRecords } from '../../../support/paid-world.js';
import { getJson, postJson } from '../../../support/service.js';
import { startServiceProcess, type ServiceProcess } from '../../../support/service-process.js';
import { pollUntil } from '../../../support/wait-until.js';
import { payingFetch, signPayment } from '../../../support/x402-payer.js';
import { fillDisk, useSmallDisks } from '../../../support/full-disk.js';

let world: PaidWorld;
let workDir: string;
let dataDir: string;
let service: ServiceProcess;
/** The environment the service runs with, kept for the restart. */
let serviceEnv: Record<string, string>;
let facilitator: SettlingFacilitator;

before(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'x402-full-data-dir-'));
  world = await PaidWorld.start(workDir);
  // DATA_DIR is a small filesystem of its own: the store and the log share it, and filling it fills nothing else.
  dataDir = join(workDir, 'data');
  mkdirSync(dataDir);
  disks.mount(dataDir, '8m');
  facilitator = await settlingFacilitator(world.facilitator.url);
  serviceEnv = {
    PORT: '0', DATA_DIR: dataDir, WORKERS: '1', RATE_LIMITS: 'off', REQUEST_LOG: 'off', AUDIT_FSYNC: 'always',
    RPC_URL: world.devnet.rpcUrl, REGISTRY_FILE: world.registryFile, PAY_TO_ADDRESS: world.devnet.treasury, FACILITATOR_URL: facilitator.url,
  };
  service = await startServiceProcess(serviceEnv);
});
after(async () => {
  await service?.stop('SIGTERM');
  await facilitator?.close();
  await world?.close();
});
// After the service stops (a busy disk cannot be unmounted), before its folder goes.
const disks = useSmallDisks();
after(() => {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

/** Fills the disk, then sends free evaluations until the page reports the audit log down: the log's files may still have room in their last pages. */
async function exhaustDisk(): Promise<void> {
  fillDisk(join(dataDir, 'filler'));
  await pollUntil('the audit log reported down on the full disk', async () => {
    await postJson(`${service.base}/api/v1/analyze/free`, world.trade({ amount: 1 }));
    return status();
  }, (doc) => doc.components.audit.status === 'down', 30_000, 0);
}

/** A paid evaluation as an agent sends it: the stock @x402/fetch client answers the 402 by paying once. */
async function paidCall(payer: { privateKey: `0x${string}` }, body: Record<string, unknown>) {
  const answer = await payingFetch(payer.privateKey, world.devnet.contracts.stablecoin)(`${service.base}/api/x402/analyze`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  const text = await answer.text();
  return { status: answer.status, text, json: JSON.parse(text) as Record<string, any>, receipt: answer.headers.get('payment-response') };
}

const status = async () => (await getJson(`${service.base}/status.json`)).json;
const alive = () => service.child.exitCode === null && service.child.signalCode === null;

/**
 * A service that could not open its data on the full disk: it reports both parts down, refuses a paid call before
 * settlement (no receipt, the payer keeps its USDC) and stays up; once `filler` goes it opens them by itself and the
 * next paid call is sold. Returns that call and the payer's balance before the refused one.
 */
async function refusedUntilRoom(payer: { address: `0x${string}`; privateKey: `0x${string}` }, filler: string, who: string) {
  const full = await status();
  assert.deepEqual([full.components.audit.status, full.components.store.status], ['down', 'down'], JSON.stringify(full.components));
  assert.match(full.components.audit.reason, /could not open: the disk is full at /);

  const before = await world.usdc(payer.address);
  const refused = await paidCall(payer, world.trade({ amount: 1 }));
  assert.equal(refused.status, 503, refused.text);
  assert.ok(refused.json.code in COMPONENT, refused.text);
  assert.equal(refused.receipt, null, `no receipt: nothing settled (${refused.text})`);
  assert.equal(await world.usdc(payer.address), before, 'the payer keeps its USDC');
  assert.ok(alive(), `${who} died on the full disk:\n${service.output()}`);

  rmSync(filler);
  await pollUntil('the audit log and the store opened', status,
    (doc) => doc.components.audit.status === 'ok' && doc.components.store.status === 'ok', 30_000, 100);
  const sold = await paidCall(payer, world.trade({ amount: 1 }));
  assert.equal(sold.status, 200, sold.text);
  return { sold, before };
}
/** The component a refusal's code names. */
const COMPONENT = { audit_unavailable: 'audit', store_unavailable: 'store' } as Record<string, 'audit' | 'store'>;

describe('a paid call with the whole DATA_DIR on a full disk', () => {
  it('is refused 503 before settlement while /status.json reports the disk down, charges nothing, and is sold and charged once after the disk frees, without a restart', async () => {
    const payer = world.devnet.wallets[1];
    const start = await world.usdc(payer.address);

    const first = await paidCall(payer, world.trade({ amount: 1 }));
    assert.equal(first.status, 200, first.text);
    assert.ok(first.receipt, 'the verdict carries its receipt');
    assert.equal(start - (await world.usdc(payer.address)), PRICE, 'charged 0.10 once');

    const filler = join(dataDir, 'filler');
    fillDisk(filler);
    // The log and the store watch their disk; nothing else is sent until the page says so.
    const full = await pollUntil('the audit log or the store reported down', status,
      (doc) => doc.components.audit.status === 'down' || doc.components.store.status === 'down', 30_000, 100);
    const down = (['audit', 'store'] as const).filter((name) => full.components[name].status === 'down');
    assert.match(down.map((name) => full.components[name].reason).join('\n'), /ENOSPC|No space left|disk is full/, JSON.stringify(full.components));

    // Every paid call while the disk is full is refused before settlement, and the page says why each time.
    // Several, spread over the log's heal attempts (one a second): a heal on a stale reading of the room
    // once let a payment through to settlement while the disk was still full.
    const before = await world.usdc(payer.address);
    for (let i = 0; i < 6; i++) {
      const now = await status();
      const down = (['audit', 'store'] as const).filter((name) => now.components[name].status === 'down');
      assert.ok(down.length > 0, `the page reports the full disk's components ok: ${JSON.stringify(now.components)}`);
      const refused = await paidCall(payer, world.trade({ amount: 1 }));
      assert.equal(refused.status, 503, refused.text);
      assert.ok(refused.json.code in COMPONENT, refused.text);
      assert.equal(refused.receipt, null, `no receipt: nothing settled (${refused.text})`);
      // Fail closed: the error answer denies, and no record stands behind it.
      assert.deepEqual([refused.json.decision, refused.json.audit_seq], ['deny', null], refused.text);
      assert.equal(await world.usdc(payer.address), before, 'the payer keeps its USDC');
      assert.ok(alive(), `the service died on the full disk:\n${service.output()}`);
    }

    rmSync(filler);
    const healed = await pollUntil('the audit log and the store reported ok', status,
      (doc) => doc.components.audit.status === 'ok' && doc.components.store.status === 'ok', 30_000, 100);
    assert.equal(healed.components.store.kind, 'lmdb');

    const body = world.trade({ amount: 1 });
    const sold = await paidCall(payer, body);
    assert.equal(sold.status, 200, sold.text);
    assert.ok(sold.receipt, 'the verdict carries its receipt');
    const { transaction } = decodePaymentResponseHeader(sold.receipt);
    assert.equal(before - (await world.usdc(payer.address)), PRICE, 'charged 0.10 once');
    const records = await walletRecords(service.base, String(body.wallet));
    assert.deepEqual(records.map((r) => [r.seq, (r.payment as { transaction: string }).transaction]), [[sold.json.audit_seq, transaction]]);

    const verdict = await getJson(`${service.base}/api/v1/audit/verify?limit=1000`);
    // The chain holds the two verdicts sold, and nothing for the refusal.
    assert.deepEqual([verdict.json.healthy, verdict.json.total], [true, 2], verdict.text);
    assert.ok(alive(), service.output());
  });

  it('keeps the verdict settled in a race with the filling disk, though the store shares that disk, and sells it on the retry, charged once', async () => {
    const payer = world.devnet.wallets[2];
    const body = world.trade({ amount: 1 });
    const payment = await signPayment(payer.privateKey, await world.challenge(service.base));
    const before = await world.usdc(payer.address);
    facilitator.beforeNextSettle(exhaustDisk);
    const first = await payWith(service.base, body, payment);
    assert.equal(first.status, 503, first.text);
    assert.match(first.json.error, /send the same request with the same payment again/, first.text);
    const receipt = decodePaymentResponseHeader(first.headers.get('payment-response')!);
    assert.equal(before - (await world.usdc(payer.address)), PRICE, 'settled once, before the append failed');
    assert.ok(alive(), `the service died on the full disk:\n${service.output()}`);

    rmSync(join(dataDir, 'filler'));
    await pollUntil('the audit log and the store reported ok', status,
      (doc) => doc.components.audit.status === 'ok' && doc.components.store.status === 'ok', 30_000, 100);
    const redeemed = await payWith(service.base, body, payment);
    assert.equal(redeemed.status, 200, redeemed.text);
    assert.equal(decodePaymentResponseHeader(redeemed.headers.get('payment-response')!).transaction, receipt.transaction);
    assert.equal(before - (await world.usdc(payer.address)), PRICE, 'never charged twice');
    const records = await walletRecords(service.base, String(body.wallet));
    assert.deepEqual(records.map((r) => [r.seq, (r.payment as { transaction: string }).transaction]), [[redeemed.json.audit_seq, receipt.transaction]]);
    const verdict = await getJson(`${service.base}/api/v1/audit/verify?limit=1000`);
    assert.equal(verdict.json.healthy, true, verdict.text);
  });

  it('restarted after a crash on the full disk with its audit index to rebuild, listens and refuses a paid call before settlement, charging nothing, and sells once the disk frees, without another restart', async () => {
    const payer = world.devnet.wallets[3];
    const head = (await status()).components.audit.head as { seq: number };
    // A crash with the audit index to build again at the next open (one moved aside, or a log from before the index lived
    // in LMDB), which needs room the full disk does not have.
    await service.stop('SIGKILL');
    rmSync(join(dataDir, 'audit', 'index'), { recursive: true });
    const filler = join(dataDir, 'filler');
    fillDisk(filler);
    service = await startServiceProcess(serviceEnv);
    const { sold, before } = await refusedUntilRoom(payer, filler, 'the restarted service');
    assert.equal(sold.json.audit_seq, head.seq + 1, 'the chain goes on from its last record before the crash');
    assert.equal(before - (await world.usdc(payer.address)), PRICE, 'charged 0.10 once');
    const verdict = await getJson(`${service.base}/api/v1/audit/verify?limit=1000`);
    assert.deepEqual([verdict.json.healthy, verdict.json.total], [true, sold.json.audit_seq], verdict.text);
  });
  it('started for the first time on an empty DATA_DIR whose disk is full, listens and refuses a paid call before settlement, charging nothing, and sells once the disk frees, without a restart', async () => {
    const payer = world.devnet.wallets[0];
    await service.stop('SIGTERM');
    // A DATA_DIR of its own, empty: the keys and epoch.json a first start generates have no room to be written.
    const firstDir = join(workDir, 'first');
    mkdirSync(firstDir);
    disks.mount(firstDir, '8m');
    const filler = join(firstDir, 'filler');
    fillDisk(filler);
    service = await startServiceProcess({ ...serviceEnv, DATA_DIR: firstDir });
    const { sold, before } = await refusedUntilRoom(payer, filler, 'the first start');
    assert.equal(sold.json.audit_seq, 1, 'the first record of the new chain');
    assert.equal(before - (await world.usdc(payer.address)), PRICE, 'charged 0.10 once');
  });
});
