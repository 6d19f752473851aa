// The embedded store and the audit log know each other (DATA_DIR/epoch.json, the store's mark): an emptied data.mdb, or an
// audit log gone behind the store, refuses the start instead of serving from amnesia, until the operator accepts a new epoch.
import assert from 'node:assert/strict';
import { readFileSync, rmSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { freePort } from '../../../src/tools/devnet/free-port.js';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startDataDirWriter } from '../../support/data-dir-writer.js';
import { getJson, postJson, sampleTrade, SAMPLE_REGISTRY } from '../../support/service.js';
import { startServiceProcess, type ServiceProcess } from '../../support/service-process.js';
import { useTempDirs } from '../../support/temp-dirs.js';

const tempDir = useTempDirs('store-emptied-');

const settings = { HOST: '127.0.0.1', REGISTRY_FILE: SAMPLE_REGISTRY, WORKERS: '1', AUDIT_FSYNC: 'off' };

async function start(dataDir: string, env: Record<string, string> = {}, expectExit = false): Promise<ServiceProcess> {
  const port = String(await freePort());
  return startServiceProcess({ ...settings, DATA_DIR: dataDir, PORT: port, ...env }, { expectExit });
}

/** The first service on `dataDir`, which writes what the tests then take away; the starts on what is left are processes. */
const startFirst = (dataDir: string) => startDataDirWriter(settings, dataDir);

/** What the helpers below need of a service: where it listens. */
type Listening = { base: string };

async function verdictSeqs(service: Listening, count: number): Promise<number[]> {
  const seqs: number[] = [];
  for (let i = 0; i < count; i++) {
    const verdict = await postJson(`${service.base}/api/v1/analyze/free`, sampleTrade({ wallet: `0x${(0xe0 + i).toString(16).repeat(20)}` }));
    assert.equal(verdict.status, 200, verdict.text);
    seqs.push(verdict.json.audit_seq);
  }
  return seqs;
}

const account = privateKeyToAccount(generatePrivateKey());
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const policyStatus = async (service: Listening, token: string) => (await getJson(`${service.base}/api/v1/config`, bearer(token))).status;

async function signIn(service: Listening): Promise<string> {
  const nonce = await getJson(`${service.base}/api/v1/auth/nonce?address=${account.address}`);
  assert.equal(nonce.status, 200, nonce.text);
  const session = await postJson(`${service.base}/api/v1/auth/wallet`, { address: account.address, signature: await account.signMessage({ message: nonce.json.message }) });
  assert.equal(session.status, 200, session.text);
  return session.json.access_token;
}

const epochOf = (dataDir: string) => JSON.parse(readFileSync(join(dataDir, 'epoch.json'), 'utf8'));

describe('an embedded store that lost its data beside a long audit log', () => {
  it('refuses to start on a zero-length data.mdb, naming the epoch and the way to accept it, and starts a new epoch when told', async () => {
    const dataDir = await tempDir();
    const first = await startFirst(dataDir);
    assert.deepEqual(await verdictSeqs(first, 3), [1, 2, 3]);
    const revoked = await signIn(first);
    assert.equal((await postJson(`${first.base}/api/v1/auth/revoke`, {}, bearer(revoked))).status, 200);
    assert.equal(await policyStatus(first, revoked), 401);
    await first.stop();

    truncateSync(join(dataDir, 'store', 'data.mdb'), 0);
    const refused = await start(dataDir, {}, true);
    assert.equal(refused.base, '', `a service on an emptied store must not listen:\n${refused.output()}`);
    const { id } = epochOf(dataDir);
    assert.match(refused.output(), new RegExp(`failed to start: the store in DATA_DIR/store is empty, but it held epoch ${id} beside an audit chain now at seq 3: revoked tokens would work again`));
    assert.match(refused.output(), new RegExp(`DATA_DIR_NEW_EPOCH=${id}`));

    const accepted = await start(dataDir, { DATA_DIR_NEW_EPOCH: id });
    try {
      assert.deepEqual(await verdictSeqs(accepted, 1), [4], 'the audit chain goes on: only the store started over');
      const epoch = epochOf(dataDir);
      assert.notEqual(epoch.id, id);
      assert.equal(epoch.previous.id, id);
      // The revocation went with the store; every token issued before the new epoch is refused instead.
      assert.equal(await policyStatus(accepted, revoked), 401, 'the revoked token must not work again');
      assert.equal(await policyStatus(accepted, await signIn(accepted)), 200, 'a new sign-in works');
    } finally {
      await accepted.stop();
    }
    // From now on the store carries the new epoch: a plain start works again.
    const after = await start(dataDir);
    try {
      assert.deepEqual(await verdictSeqs(after, 1), [5]);
    } finally {
      await after.stop();
    }
  });

  it('refuses to start when the audit log lost records the store saw, instead of giving seq 1 a second record', async () => {
    const dataDir = await tempDir();
    const first = await startFirst(dataDir);
    assert.deepEqual(await verdictSeqs(first, 2), [1, 2]);
    await first.stop();

    rmSync(join(dataDir, 'audit'), { recursive: true });
    const refused = await start(dataDir, {}, true);
    assert.equal(refused.base, '', `a service whose audit log is gone must not listen:\n${refused.output()}`);
    const { id } = epochOf(dataDir);
    assert.match(refused.output(), /failed to start: the store saw the audit chain at seq 2, but the audit log's head is seq 0: acknowledged audit records are gone/);
    assert.match(refused.output(), new RegExp(`DATA_DIR_NEW_EPOCH=${id}`));
  });
});
