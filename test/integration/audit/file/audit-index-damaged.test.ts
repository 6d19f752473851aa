// A damaged audit index at start: the service moves it aside, rebuilds it from audit.log and facts.log and serves, never dying by a signal.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startDataDirWriter } from '../../../support/data-dir-writer.js';
import { getJson, postJson, SAMPLE_REGISTRY, sampleTrade } from '../../../support/service.js';
import { startServiceProcess, type ServiceProcess } from '../../../support/service-process.js';
import { useTempDirs } from '../../../support/temp-dirs.js';

const tempDir = useTempDirs('audit-index-damaged-test-');
const RECORDS = 300;
const wallet = (n: number) => `0x${(n + 1).toString(16).padStart(40, '0')}`;

const settings = { PORT: '0', REGISTRY_FILE: SAMPLE_REGISTRY, WORKERS: '1', REQUEST_LOG: 'off', RATE_LIMITS: 'off', AUDIT_FSYNC: 'always' };
const start = (dataDir: string): Promise<ServiceProcess> => startServiceProcess({ ...settings, DATA_DIR: dataDir });
/** What the helpers below need of a service: where it listens (a process, or the one in this process that writes the DATA_DIR). */
type Listening = { base: string };
const evaluate = (service: Listening, n: number) => postJson(`${service.base}/api/v1/analyze/free`, sampleTrade({ wallet: wallet(n % 3), amount: 1 }));
const listing = async (service: Listening, w: number) => (await getJson(`${service.base}/api/v1/audit/wallet/${wallet(w)}?limit=500`)).json.records;
const facts = async (service: Listening) => (await getJson(`${service.base}/api/v1/audit/facts?from_seq=1&limit=${RECORDS}`)).text;

/** A DATA_DIR (store, log, facts, index) the service wrote over 300 verdicts, and what it served from it; the start on it is a process. */
async function dataDirWithRecords(): Promise<{ dataDir: string; before: { listings: unknown[]; facts: string } }> {
  const dataDir = await tempDir();
  const service = await startDataDirWriter(settings, dataDir);
  try {
    for (let n = 0; n < RECORDS; n += 20) {
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => evaluate(service, n + i)));
      for (const answer of answers) assert.equal(answer.status, 200, answer.text);
    }
    const listings = [await listing(service, 0), await listing(service, 1), await listing(service, 2)];
    return { dataDir, before: { listings, facts: await facts(service) } };
  } finally {
    await service.stop();
  }
}

const damages: Array<[string, (file: string) => void]> = [
  ['truncated to 8 KiB', (file) => truncateSync(file, 8 * 1024)],
  ['a random file of the same size', (file) => writeFileSync(file, randomBytes(statSync(file).size))],
  ['emptied', (file) => truncateSync(file, 0)],
];

describe('a damaged audit index at start', () => {
  for (const [name, damage] of damages) {
    it(`is moved aside, named, and rebuilt from the logs; the service serves the same records: ${name}`, async () => {
      const { dataDir, before } = await dataDirWithRecords();
      const index = join(dataDir, 'audit', 'index');
      const file = join(index, 'data.mdb');
      assert.ok(existsSync(join(dataDir, 'store', 'data.mdb')), 'the store is there too');
      damage(file);

      const service = await start(dataDir);
      try {
        const said = service.output();
        const moved = new RegExp(`audit: the index ${file} is damaged \\(([^)]+)\\); moved it aside to (${index}\\.damaged-[0-9TZ-]+) \\(remove it once no longer needed\\) and rebuilding the index from audit\\.log and facts\\.log`);
        const found = moved.exec(said);
        assert.ok(found, said);
        assert.ok(existsSync(join(found[2], 'data.mdb')), `the damaged file is kept at ${found[2]}`);
        assert.deepEqual(readdirSync(join(dataDir, 'audit')).filter((entry) => entry.startsWith('index.damaged-')), [found[2].slice(index.length - 'index'.length)]);
        assert.match(said, /audit: indexing audit\.log from its start \(\d+ bytes/);
        assert.match(said, /audit: indexing facts\.log from its start \(\d+ bytes/);

        assert.deepEqual([await listing(service, 0), await listing(service, 1), await listing(service, 2)], before.listings);
        assert.equal(await facts(service), before.facts);
        const next = await evaluate(service, 0);
        assert.equal(next.status, 200, next.text);
        assert.equal(next.json.audit_seq, RECORDS + 1);
        const verified = await getJson(`${service.base}/api/v1/audit/verify/${wallet(0)}?limit=1000`);
        assert.deepEqual([verified.json.healthy, verified.json.total], [true, RECORDS / 3 + 1]);
      } finally {
        await service.stop();
      }
      assert.deepEqual([service.child.exitCode, service.child.signalCode], [0, null], service.output());
    });
  }
});
