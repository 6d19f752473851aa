// A SIGKILL, then bytes edited in the last records: the service refuses to start, naming the seq, until the loss is accepted.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { freePort } from '../../../support/redis-server.js';
import { getJson, postJson, SAMPLE_REGISTRY, sampleTrade } from '../../../support/service.js';
import { exited, startServiceProcess } from '../../../support/service-process.js';
import { useTempDirs } from '../../../support/temp-dirs.js';

const ANSWERED = 40;
const DAMAGED = 3;
const tempDir = useTempDirs('audit-tail-damage-test-');
/** The service on `port` with the sample registry and one scoring thread. */
const spawnService = (port: number, env: Record<string, string>, expectExit = false) =>
  startServiceProcess({ PORT: String(port), HOST: '127.0.0.1', REGISTRY_FILE: SAMPLE_REGISTRY, WORKERS: '1', ...env }, { expectExit });

/** Flips one byte inside the JSON of each of the last `count` lines, as a failing disk or a careless edit would. */
function flipLastLines(file: string, count: number): void {
  const lines = readFileSync(file).toString('latin1').split('\n');
  for (let i = lines.length - 1 - count; i < lines.length - 1; i++) {
    const at = lines[i].indexOf('"price_source"') + 2;
    lines[i] = lines[i].slice(0, at) + String.fromCharCode(lines[i].charCodeAt(at) ^ 0x01) + lines[i].slice(at + 1);
  }
  writeFileSync(file, Buffer.from(lines.join('\n'), 'latin1'));
}

describe('damage at the end of the file log after a crash', () => {
  it('is not cut as a torn write: the start is refused until the loss is accepted, and no acknowledged seq is issued again', async () => {
    const dataDir = await tempDir();
    // Checkpoints off: what vouches for the damaged records here is the index alone.
    const env = { DATA_DIR: dataDir, RATE_LIMITS: 'off', AUDIT_FSYNC: 'always', AUDIT_CHECKPOINT_RECORDS: '0', AUDIT_CHECKPOINT_SECONDS: '0' };
    const port = await freePort();
    const first = await spawnService(port, env);
    const received = new Map<number, string>();
    for (let i = 0; i < ANSWERED; i++) {
      const answer = await postJson(`http://127.0.0.1:${port}/api/v1/analyze/free`, sampleTrade({ wallet: `0x${(i + 1).toString(16).padStart(40, '0')}`, amount: 1 }));
      assert.equal(answer.status, 200, answer.text);
      received.set(answer.json.audit_seq, answer.json.audit_hash);
    }
    // A listing reads the index, which holds every acknowledged record.
    assert.equal((await getJson(`http://127.0.0.1:${port}/api/v1/audit/global?limit=1`)).json.records[0].seq, ANSWERED);
    first.child.kill('SIGKILL');
    await exited(first.child);
    flipLastLines(join(dataDir, 'audit', 'audit.log'), DAMAGED);
    const firstLost = ANSWERED - DAMAGED + 1;

    const refused = await spawnService(port, env, true);
    assert.equal(refused.child.exitCode, 1, refused.output());
    assert.match(refused.output(), new RegExp(`record ${firstLost} is damaged or missing.*AUDIT_ACCEPT_LOSS=${firstLost}`));

    const wrongSeq = await spawnService(port, { ...env, AUDIT_ACCEPT_LOSS: String(firstLost + 1) }, true);
    assert.equal(wrongSeq.child.exitCode, 1, 'accepting another seq than the first lost one accepts nothing');

    const accepted = await spawnService(port, { ...env, AUDIT_ACCEPT_LOSS: String(firstLost) });
    try {
      assert.match(accepted.output(), new RegExp(`records ${firstLost}\\.\\.${ANSWERED} were lost; the loss was accepted`));
      const next = await postJson(`http://127.0.0.1:${port}/api/v1/analyze/free`, sampleTrade({ amount: 1 }));
      assert.equal(next.status, 200, next.text);
      assert.equal(next.json.audit_seq, ANSWERED + 1, 'the next verdict takes the first seq never acknowledged');
      const listed = (await getJson(`http://127.0.0.1:${port}/api/v1/audit/global?limit=${DAMAGED + 2}`)).json.records as Array<Record<string, any>>;
      assert.deepEqual(listed.map((r) => [r.seq, r.channel, r.wallet]), [
        [ANSWERED + 1, 'free', '0x1111111111111111111111111111111111111111'],
        ...Array.from({ length: DAMAGED }, (_, i) => [ANSWERED - i, 'audit', 'audit-log']),
        [firstLost - 1, 'free', `0x${(firstLost - 1).toString(16).padStart(40, '0')}`],
      ]);
      assert.match(listed[1].reasons[0], new RegExp(`^AUDIT_RECORD_LOST: record ${ANSWERED} was acknowledged and then lost`));
      const verdict = await getJson(`http://127.0.0.1:${port}/api/v1/audit/verify`);
      assert.deepEqual([verdict.json.healthy, verdict.json.total], [true, ANSWERED + 1]);
      const all = (await getJson(`http://127.0.0.1:${port}/api/v1/audit/global?limit=${ANSWERED + 1}`)).json.records as Array<Record<string, any>>;
      const stored = new Map(all.map((r) => [r.seq as number, r.hash as string]));
      for (const [seq, hash] of received) if (seq < firstLost) assert.equal(stored.get(seq), hash, `audit_seq ${seq}`);
    } finally {
      accepted.child.kill('SIGTERM');
      await exited(accepted.child);
    }
    const again = await spawnService(port, env);
    assert.doesNotMatch(again.output(), /damaged or missing/, 'the markers took the lost seqs: the next start is a plain one');
    again.child.kill('SIGTERM');
    await exited(again.child);
  });
});
