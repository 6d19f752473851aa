// Kills the primary holding the audit chain under load from two service processes on a real Redis Cluster, and counts what survived.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Cluster } from 'ioredis';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Checkpoint } from '../../../../src/audit/proof/checkpoint.js';
import { MerkleTree } from '../../../../src/audit/proof/merkle.js';
import { EXIT_HEALTHY, runAuditVerify } from '../../../../src/tools/cli/audit-verify-command.js';
import { startRedisCluster, type RedisCluster } from '../../../support/redis-cluster.js';
import { SAMPLE_REGISTRY, getJson, postJson, sampleTrade, send, type HttpResult } from '../../../support/service.js';
import { startServiceProcess, type ServiceProcess } from '../../../support/service-process.js';
import { useTempDirs } from '../../../support/temp-dirs.js';
import { waitUntil } from '../../../support/wait-until.js';

const CHAIN_KEY = '{tg:audit}:head';
const CLIENTS = 4;
const tempDir = useTempDirs('cluster-failover-');
let cluster: RedisCluster;
let instances: ServiceProcess[] = [];
let raw: Cluster;

before(async () => {
  cluster = await startRedisCluster();
  // A second replica for the chain's primary: after the failover the promoted node still has one to
  // confirm each record (docs/audit-records.md "On a Redis Cluster": each primary needs AUDIT_REPLICA_ACKS replicas).
  await cluster.addReplica(CHAIN_KEY);
  const env = {
    PORT: '0', WORKERS: '1', AUDIT_FSYNC: 'off', REGISTRY_FILE: SAMPLE_REGISTRY, REDIS_URL: undefined, REDIS_CLUSTER_NODES: cluster.seeds,
    JWT_SECRET: 'cluster-failover-test-secret-of-at-least-32-characters', AUDIT_SIGNING_KEY: Buffer.alloc(32, 7).toString('base64'),
    // Checkpoints every 25 records, so some are signed across the failover (ARCHITECTURE.md "Durable acknowledgement").
    AUDIT_REPLICA_TIMEOUT_MS: '500', AUDIT_CHECKPOINT_RECORDS: '25', RATE_LIMIT_IP_FREE: '1000000', RATE_LIMIT_IP_AUTH: '1000', RATE_LIMIT_WINDOW_SECONDS: '3600',
  };
  for (let i = 0; i < 2; i++) instances.push(await startServiceProcess({ ...env, DATA_DIR: await tempDir() }));
  raw = new Cluster(cluster.target.kind === 'cluster' ? [...cluster.target.nodes] : [], { scaleReads: 'master' });
  raw.on('error', () => undefined);
});
after(async () => {
  raw?.disconnect();
  await Promise.all(instances.map((instance) => instance.stop()));
  await cluster?.stop();
});

interface Answer {
  instance: number;
  status: number;
  seq: number | null;
  hash: string | null;
  decision: unknown;
  code: unknown;
}

const answerOf = (instance: number, result: HttpResult): Answer => ({
  instance, status: result.status, seq: result.json?.audit_seq ?? null, hash: result.json?.audit_hash ?? null,
  decision: result.json?.decision, code: result.json?.code,
});

/** `CLIENTS` loops, each a fresh wallet per request sent to the instances in turn, until `stop()`. */
function load(): { answers: Answer[]; stop(): Promise<void> } {
  const answers: Answer[] = [];
  let running = true;
  let sent = 0;
  const client = async (c: number) => {
    while (running) {
      const n = ++sent;
      const wallet = `0x${(0xc1000000 + c).toString(16)}${n.toString(16).padStart(32, '0')}`;
      const i = n % instances.length;
      const result = await postJson(`${instances[i].base}/api/v1/analyze/free`, sampleTrade({ wallet, amount: 1 })).catch(() => null);
      answers.push(result ? answerOf(i, result) : { instance: i, status: 0, seq: null, hash: null, decision: null, code: 'no answer' });
    }
  };
  const loops = Array.from({ length: CLIENTS }, (_, c) => client(c));
  return { answers, stop: async () => {
    running = false;
    await Promise.all(loops);
  } };
}

/** A signed-in bearer for a fresh wallet, revoked on one instance. */
async function revokedBearer(): Promise<Record<string, string>> {
  const signer = privateKeyToAccount(generatePrivateKey());
  const [a, b] = instances;
  const nonce = await getJson(`${a.base}/api/v1/auth/nonce?address=${signer.address}`);
  const signature = await signer.signMessage({ message: nonce.json.message });
  const login = await postJson(`${b.base}/api/v1/auth/wallet`, { address: signer.address, signature });
  assert.equal(login.status, 200, login.text);
  const bearer = { authorization: `Bearer ${login.json.access_token}` };
  assert.deepEqual((await send('POST', `${a.base}/api/v1/auth/revoke`, undefined, bearer)).json, { revoked: true });
  return bearer;
}

/** A wallet whose window lives on the chain's own primary, the node the test kills. */
async function walletOnChainPrimary(): Promise<string> {
  const chain = await cluster.shardOf(CHAIN_KEY);
  for (let n = 1; ; n++) {
    const wallet = `0x${n.toString(16).padStart(40, 'd')}`;
    if ((await cluster.shardOf(`{${wallet}}`)).primary === chain.primary) return wallet;
  }
}

const evaluateFor = (wallet: string, i: number) => postJson(`${instances[i % 2].base}/api/v1/analyze/free`, sampleTrade({ wallet, amount: 1 }));

describe('a failover of the audit chain\'s primary under load from two instances', () => {
  it('fails closed while the replica is promoted, resumes by itself, and loses no acknowledged record, window or revocation', async (t) => {
    const bearer = await revokedBearer();
    const windowWallet = await walletOnChainPrimary();
    for (let i = 0; i < 4; i++) assert.equal((await evaluateFor(windowWallet, i)).status, 200);
    // The store's writes (windows, revocations) have no WAIT of their own: the test kills after they replicated.
    await cluster.caughtUp(`{${windowWallet}}`);
    const traffic = load();
    await waitUntil(() => traffic.answers.filter((a) => a.status === 200).length >= 40, 'verdicts before the kill', 30_000);
    // The replicas are cut off first, so each instance appends records no replica confirmed (answered 503)
    // and has seen them as the chain's head; the primary then dies with them, and a replica is promoted without.
    const stalledAt = traffic.answers.length;
    let headAtKill = 0;
    let lineAtKill: string | null = null;
    const { primary, replicas } = await cluster.isolateReplicas(CHAIN_KEY);
    const unconfirmed = (i: number) => traffic.answers.slice(stalledAt).some((a) => a.instance === i && a.code === 'audit_unavailable');
    try {
      await waitUntil(() => unconfirmed(0) && unconfirmed(1), 'appends unconfirmed on both instances', 30_000);
      // Both see the primary without replicas (a look once a second), so their proof trees have had a tick to follow the unconfirmed head.
      await waitUntil(async () => (await Promise.all(instances.map(replicasMissing))).every(Boolean), 'both instances report the replicas gone', 30_000, 100);
      headAtKill = Number(await raw.hget('{tg:audit}:head', 'seq'));
      lineAtKill = await raw.hget('{tg:audit}:records', String(headAtKill));
      await primary.kill();
    } finally {
      for (const replica of replicas) replica.resume();
    }
    const killedAt = traffic.answers.length;
    // Resumed by itself: both instances answer verdicts again, well after the kill.
    const resumed = (i: number) => traffic.answers.slice(killedAt).filter((a) => a.instance === i && a.status === 200).length >= 20;
    try {
      await waitUntil(async () => resumed(0) && resumed(1), 'both instances answering verdicts after the failover', 90_000, 100);
    } catch (error) {
      const since = countBy(traffic.answers.slice(-200));
      throw new Error(`${(error as Error).message}; the last 200 answers: ${JSON.stringify(since)}`, { cause: error });
    } finally {
      await traffic.stop();
    }
    const answers = traffic.answers;
    const verdicts = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status !== 200);
    t.diagnostic(`answers ${answers.length} (before the stall ${stalledAt}, before the kill ${killedAt}); verdicts ${verdicts.length}; refused ${refused.length}: ${JSON.stringify(countBy(refused))}`);

    // Fail closed: every answer is a recorded verdict or a 503 without a record.
    for (const a of verdicts) assert.ok(Number.isSafeInteger(a.seq) && /^[0-9a-f]{64}$/.test(String(a.hash)), JSON.stringify(a));
    for (const a of refused) {
      assert.equal(a.status, 503, JSON.stringify(a));
      assert.equal(a.hash, null, JSON.stringify(a));
      assert.notEqual(a.decision, 'allow');
    }
    assert.ok(refused.length > 0 || answers.length > killedAt, 'traffic ran through the failover');

    // No seq issued twice, and every acknowledged verdict's record is in the log with its hash.
    const seqs = verdicts.map((a) => a.seq!);
    assert.equal(new Set(seqs).size, seqs.length, 'no seq answered twice');
    const stored = await raw.hmget('{tg:audit}:records', ...seqs.map(String));
    const missing = verdicts.filter((a, i) => stored[i]?.slice(0, 64) !== a.hash);
    t.diagnostic(`acknowledged records checked in the log: ${verdicts.length}; missing or different: ${missing.length}`);
    assert.deepEqual(missing, []);

    // The unconfirmed records at the chain's head when the primary died are gone or replaced.
    const dropped = (await raw.hget('{tg:audit}:records', String(headAtKill))) !== lineAtKill;
    t.diagnostic(`chain head when the primary died: seq ${headAtKill}; that record ${dropped ? 'was dropped by the failover' : 'survived'}`);

    // The whole chain verifies, read through either instance's exports.
    for (const instance of instances) {
      let report = '';
      const status = await runAuditVerify([instance.base, '--threads', '1', '--json'], { stdout: { write: (text: string) => (report += text) }, stderr: { write: () => true } });
      assert.equal(status, EXIT_HEALTHY, report);
      const { total } = JSON.parse(report) as { total: number };
      assert.ok(total >= Math.max(...seqs), report);
      t.diagnostic(`audit:verify through ${instance.base}: ${total} records, healthy`);
    }

    // Every checkpoint, signed before, during and after the failover, is over records the chain still holds, and the
    // latest extends from genesis: no tree took in a record the failover dropped.
    await waitUntil(async () => Number(await raw.get('{tg:audit}:checkpoint-latest-size')) > headAtKill, 'a checkpoint past the failover', 30_000, 100);
    const checkpoints = await checkpointsAgainstChain();
    t.diagnostic(`checkpoints checked against the chain: ${checkpoints.checked}; not matching: ${JSON.stringify(checkpoints.mismatched)}`);
    assert.deepEqual(checkpoints.mismatched, []);
    for (const instance of instances) {
      let report = '';
      const status = await runAuditVerify([instance.base, '--since', 'genesis', '--json'], { stdout: { write: (text: string) => (report += text) }, stderr: { write: () => true } });
      assert.equal(status, EXIT_HEALTHY, report);
      assert.ok((JSON.parse(report) as { to: { tree_size: number } }).to.tree_size > headAtKill, report);
    }

    // The wallet's window kept its four evaluations: six more, then 429.
    const after: number[] = [];
    for (let i = 0; after.at(-1) !== 429 && i < 12; i++) after.push((await evaluateFor(windowWallet, i)).status);
    assert.deepEqual(after, [200, 200, 200, 200, 200, 200, 429]);

    // The revocation made before the kill still holds on both instances.
    for (const instance of instances) {
      const refusedToken = await getJson(`${instance.base}/api/v1/config`, bearer);
      assert.equal(refusedToken.status, 401, refusedToken.text);
      assert.equal(refusedToken.json.code, 'token_revoked');
    }
  });
});

/** Whether the instance reports the chain's primary without the replicas AUDIT_REPLICA_ACKS asks for. */
async function replicasMissing(instance: ServiceProcess): Promise<boolean> {
  const status = await getJson(`${instance.base}/status.json`).catch(() => null);
  return String(status?.json?.components?.audit?.reason).includes('0 of the 1 replicas');
}

/** The tree sizes of the stored checkpoints whose root or last hash the chain's records no longer give. */
async function checkpointsAgainstChain(): Promise<{ checked: number; mismatched: number[] }> {
  const stored = Object.values(await raw.hgetall('{tg:audit}:checkpoints')).map((text) => JSON.parse(text) as Checkpoint);
  const largest = Math.max(0, ...stored.map((checkpoint) => checkpoint.tree_size));
  const lines = largest === 0 ? [] : await raw.hmget('{tg:audit}:records', ...Array.from({ length: largest }, (_, i) => String(i + 1)));
  const hashes = lines.map((line, i) => line?.slice(0, 64) ?? assert.fail(`record ${i + 1} is missing`));
  const tree = new MerkleTree();
  for (const hash of hashes) tree.appendRecordHash(hash);
  const mismatched = stored.filter((c) => tree.root(c.tree_size).toString('hex') !== c.root_hash || hashes[c.tree_size - 1] !== c.last_hash);
  return { checked: stored.length, mismatched: mismatched.map((c) => c.tree_size).sort((a, b) => a - b) };
}

function countBy(answers: Answer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const a of answers) counts[`${a.status} ${String(a.code)}`] = (counts[`${a.status} ${String(a.code)}`] ?? 0) + 1;
  return counts;
}
