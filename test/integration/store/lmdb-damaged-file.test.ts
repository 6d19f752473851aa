// A damaged LMDB file at start: the service refuses with the file and the two ways out, exits non-zero and never dies by a signal.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { LmdbStore } from '../../../src/store/lmdb-store.js';
import { policyKey } from '../../../src/store/keys.js';
import { postJson, SAMPLE_REGISTRY, sampleTrade, startTestService } from '../../support/service.js';
import { startServiceProcess, type ServiceProcess } from '../../support/service-process.js';
import { useTempDirs } from '../../support/temp-dirs.js';

const tempDir = useTempDirs('lmdb-damaged-file-test-');
const PAGE = 4096;
const BLOCKED_WALLET = '0x00000000000000000000000000000000000000b1';

/** A DATA_DIR whose store holds a policy and a few hundred verdicts over many pages, written by the store itself. */
async function dataDirWithStore(): Promise<{ dataDir: string; file: string }> {
  const dataDir = await tempDir();
  const dir = join(dataDir, 'store');
  mkdirSync(dir);
  const store = LmdbStore.open(dir, Date.now);
  await store.set(policyKey(BLOCKED_WALLET), JSON.stringify({ blocked_assets: ['TSLA'] }), 0);
  await Promise.all(Array.from({ length: 300 }, (_, i) => store.set(`idem:free:${i}`, `verdict ${i} ${'v'.repeat(200)}`, 3_600_000)));
  await store.close();
  return { dataDir, file: join(dir, 'data.mdb') };
}

const settings = { PORT: '0', REGISTRY_FILE: SAMPLE_REGISTRY, WORKERS: '1', REQUEST_LOG: 'off' };
const start = (dataDir: string, expectExit = false): Promise<ServiceProcess> => startServiceProcess({ ...settings, DATA_DIR: dataDir }, { expectExit });

const damages: Array<[string, (file: string) => void]> = [
  ['truncated to 8 KiB', (file) => truncateSync(file, 8 * 1024)],
  // The header's txnid (offset 8 of a page): reads pass, the first write copies the page and crashes.
  ['a byte changed on each page (a page header)', (file) => flipOnEachPage(file, 8)],
  ['a byte changed on each page (past the header)', (file) => flipOnEachPage(file, 24)],
  ['a random file of the same size', (file) => writeFileSync(file, randomBytes(statSync(file).size))],
];

function flipOnEachPage(file: string, offset: number): void {
  const bytes = readFileSync(file);
  for (let page = 0; page < bytes.length; page += PAGE) bytes[page + offset] ^= 0xff;
  writeFileSync(file, bytes);
}

describe('a damaged LMDB store file at start', () => {
  for (const [name, damage] of damages) {
    it(`refuses to start, naming the file and what to do: ${name}`, async () => {
      const { dataDir, file } = await dataDirWithStore();
      damage(file);
      const service = await start(dataDir, true);
      assert.equal(service.base, '', `it started on a damaged store:\n${service.output()}`);
      assert.deepEqual([service.child.exitCode, service.child.signalCode], [1, null], service.output());
      const said = service.output();
      assert.match(said, new RegExp(`^failed to start: the store file ${file} is damaged: `, 'm'));
      assert.match(said, new RegExp(`Restore ${file} from a copy .*or move it aside \\(mv ${file} ${file}\\.damaged\\) to start with an empty store`));

      // The second way out works: moved aside, the service starts with an empty store. The refusal above is the
      // process's; this start only opens the store, the same startService in this process, without a second process
      // loading the service's modules.
      renameSync(file, `${file}.damaged`);
      const fresh = await startTestService(settings, dataDir);
      try {
        const verdict = await postJson(`${fresh.base}/api/v1/analyze/free`, sampleTrade({ wallet: BLOCKED_WALLET, amount: 1 }));
        assert.equal(verdict.status, 200, verdict.text);
        assert.ok(!verdict.json.reasons.some((reason: string) => reason.startsWith('ASSET_BLOCKED_BY_POLICY')), 'the empty store holds no policy');
      } finally {
        await fresh.stop(false);
      }
    });
  }

  it('starts on a whole store and keeps what it holds', async () => {
    const { dataDir } = await dataDirWithStore();
    const service = await start(dataDir);
    try {
      const verdict = await postJson(`${service.base}/api/v1/analyze/free`, sampleTrade({ wallet: BLOCKED_WALLET, amount: 1 }));
      assert.equal(verdict.status, 200, verdict.text);
      assert.ok(verdict.json.reasons.some((reason: string) => reason.startsWith('ASSET_BLOCKED_BY_POLICY')), verdict.text);
    } finally {
      await service.stop();
    }
    assert.equal(service.child.exitCode, 0, service.output());
  });
});
