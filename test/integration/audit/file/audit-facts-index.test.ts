// Where facts.log's pages begin lives in the LMDB audit index: an older folder's facts.idx gives way to it, and a SIGKILL loses no record's facts.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { open } from 'lmdb';
import { startDataDirWriter } from '../../../support/data-dir-writer.js';
import { getJson, postJson, SAMPLE_REGISTRY, sampleTrade } from '../../../support/service.js';
import { startServiceProcess, type ServiceProcess } from '../../../support/service-process.js';
import { useTempDirs } from '../../../support/temp-dirs.js';

const tempDir = useTempDirs('audit-facts-index-test-');
const wallet = (n: number) => `0x${(n + 1).toString(16).padStart(40, '0')}`;

const settings = { PORT: '0', REGISTRY_FILE: SAMPLE_REGISTRY, WORKERS: '1', REQUEST_LOG: 'off', RATE_LIMITS: 'off', AUDIT_FSYNC: 'off' };
const start = (dataDir: string): Promise<ServiceProcess> => startServiceProcess({ ...settings, DATA_DIR: dataDir });
/** What the helpers below need of a service: where it listens (a process, or the writer in this process). */
type Listening = Pick<ServiceProcess, 'base'>;
const evaluate = (service: Listening, n: number) => postJson(`${service.base}/api/v1/analyze/free`, sampleTrade({ wallet: wallet(n % 7), amount: 1 + (n % 5) }));

/** The facts export of records 1 .. records, page by page. */
async function allFacts(service: Listening, records: number): Promise<string> {
  let text = '';
  for (let from = 1; from <= records; from += 1000) text += (await getJson(`${service.base}/api/v1/audit/facts?from_seq=${from}&limit=1000`)).text;
  return text;
}

/** seq -> facts_hash of every stored record. */
async function factsHashes(service: Listening): Promise<Map<number, string>> {
  const exported = await getJson(`${service.base}/api/v1/audit/export?limit=10000`);
  return new Map(exported.text.split('\n').filter(Boolean).map((line) => {
    const record = JSON.parse(line.slice(65)) as { seq: number; facts_hash: string };
    return [record.seq, record.facts_hash];
  }));
}

async function evaluateMany(service: Listening, count: number): Promise<void> {
  for (let n = 0; n < count; n += 25) {
    const answers = await Promise.all(Array.from({ length: 25 }, (_, i) => evaluate(service, n + i)));
    for (const answer of answers) assert.equal(answer.status, 200, answer.text);
  }
}

describe('the facts pages in the audit index', () => {
  it('take over from an older data folder\'s facts.idx at start, indexing facts.log once, with the same facts served', async () => {
    const dataDir = await tempDir();
    // The service that writes the 700 records runs in this process; the starts that take over are processes.
    const first = await startDataDirWriter(settings, dataDir);
    let before: string;
    try {
      await evaluateMany(first, 700);
      before = await allFacts(first, 700);
    } finally {
      await first.stop();
    }
    // As an older version left it: no facts pages in the index, and its own sparse index beside facts.log.
    const index = open({ path: join(dataDir, 'audit', 'index') });
    index.openDB({ name: 'facts', keyEncoding: 'uint32' }).clearSync();
    await index.close();
    const oldIndex = join(dataDir, 'audit', 'facts.idx');
    writeFileSync(oldIndex, Buffer.alloc(48));

    const second = await start(dataDir);
    try {
      assert.match(second.output(), /audit: indexing facts\.log from its start \(\d+ bytes; progress every 5 s\)/);
      assert.equal(existsSync(oldIndex), false, 'facts.idx is removed');
      assert.equal(await allFacts(second, 700), before);
    } finally {
      await second.stop();
    }
    // The next start finds the pages marked and reads nothing from the start of facts.log.
    const third = await start(dataDir);
    try {
      assert.doesNotMatch(third.output(), /indexing facts\.log/);
      assert.equal(await allFacts(third, 700), before);
      assert.equal(existsSync(oldIndex), false, 'no facts.idx is made again');
    } finally {
      await third.stop();
    }
  });

  it('serve every stored record\'s facts after a SIGKILL mid-traffic, with no rebuild', async () => {
    const dataDir = await tempDir();
    const first = await start(dataDir);
    await evaluateMany(first, 600);
    // Traffic in flight when the process dies: some groups are written and never acknowledged.
    const inFlight = Array.from({ length: 50 }, (_, i) => evaluate(first, 600 + i).catch(() => null));
    first.child.kill('SIGKILL');
    await Promise.all(inFlight);
    await first.stop('SIGKILL');

    const second = await start(dataDir);
    try {
      assert.doesNotMatch(second.output(), /indexing (facts|audit)\.log from its start/);
      const hashes = await factsHashes(second);
      assert.ok(hashes.size >= 600, `${hashes.size} records stored`);
      const served = new Map<string, string>();
      for (const line of (await allFacts(second, hashes.size)).split('\n').filter(Boolean)) {
        const [seq, hash] = line.split(' ', 2);
        const text = line.slice(seq.length + 1 + 65);
        assert.equal(createHash('sha256').update(text).digest('hex'), hash, `facts line of seq ${seq} hashes to its name`);
        served.set(`${seq} ${hash}`, text);
      }
      for (const [seq, hash] of hashes) assert.ok(served.has(`${seq} ${hash}`), `the facts of record ${seq} are served`);
      const next = await evaluate(second, 0);
      assert.equal(next.json.audit_seq, hashes.size + 1);
    } finally {
      await second.stop();
    }
  });
});
