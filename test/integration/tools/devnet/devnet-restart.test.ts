// The embedded devnet is supervised: a killed anvil is restarted and redeployed at the same addresses, or refused if they differ.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Devnet, DevnetOptions } from '../../../../src/tools/devnet/devnet.js';
import { startDevnet } from '../../../../src/tools/devnet/devnet.js';
import { DevnetSupervisor } from '../../../../src/tools/devnet/supervisor.js';
import { getJson, postJson, startTestService, type TestService } from '../../../support/service.js';
import { pollUntil } from '../../../support/wait-until.js';

// A Tuesday during the NYSE session.
const OPEN_MARKET = Date.UTC(2026, 10, 17, 15, 0, 0);
let running: TestService;
let walletSeq = 0;

/** A service on an embedded devnet of its own: anvil is killed here, and restart counts start at 0. */
const startOnDevnet = () => startTestService({ REGISTRY_FILE: '', RATE_LIMITS: 'off' }, undefined, { now: () => OPEN_MARKET });

/** A wallet no earlier evaluation has cached holdings for. */
const freshWallet = () => `0x${(0xdead0000 + ++walletSeq).toString(16).padStart(40, '0')}`;
const chainStatus = async (on = running) => (await getJson(`${on.base}/status.json`)).json.components.chain;

function evaluate(on = running) {
  const tsla = on.service.registry.bySymbol('TSLA')!;
  return postJson(`${on.base}/api/v1/analyze/free`, { wallet: freshWallet(), asset: 'TSLA', contract_address: tsla.contract_address, side: 'buy', amount: 1 });
}

const until = <T>(what: string, probe: () => Promise<T>, ok: (value: T) => boolean) => pollUntil(what, probe, ok, 60_000, 25);

describe('an embedded devnet whose anvil is killed', () => {
  before(async () => {
    running = await startOnDevnet();
  });
  after(() => running.stop());

  it('fails closed and says so, then comes back at the same addresses and resumes', async () => {
    const allowed = await evaluate();
    assert.deepEqual([allowed.status, allowed.json.decision, allowed.json.price_source], [200, 'allow', 'oracle'], allowed.text);
    const { head, ...chain } = await chainStatus();
    assert.deepEqual(chain, { status: 'ok', kind: 'devnet', chain_id: 4663, restarts: 0, anvil_pid: running.service.chain.devnet!.anvil.pid });
    assert.ok(head.number > 0, 'the head block the feeds were read at');
    const assets = (await getJson(`${running.base}/api/v1/assets`)).json;
    const { pid, port } = running.service.chain.devnet!.anvil;

    process.kill(pid, 'SIGKILL');
    const closed = await evaluate();
    assert.equal(closed.status, 503, closed.text);
    assert.equal(closed.json.audit_seq, null);
    const down = await until('the chain shows down with the reason', chainStatus, (chain) => /exited unexpectedly/.test(chain.reason ?? ''));
    assert.equal(down.status, 'down');
    assert.equal((await getJson(`${running.base}/status.json`)).json.status, 'down');
    assert.ok(running.logs.some((line) => line.startsWith(`devnet: anvil pid ${pid} exited unexpectedly (signal SIGKILL)`)), running.logs.join('\n'));

    const back = await until('the chain is back', chainStatus, (chain) => chain.status === 'ok');
    const devnet = running.service.chain.devnet!;
    assert.notEqual(devnet.anvil.pid, pid);
    assert.equal(devnet.anvil.port, port);
    assert.deepEqual({ ...back, head: undefined }, { status: 'ok', kind: 'devnet', chain_id: 4663, restarts: 1, anvil_pid: devnet.anvil.pid, head: undefined });
    assert.ok(running.logs.some((line) => line.startsWith(`devnet: anvil restarted (pid ${devnet.anvil.pid}, port ${port})`)), running.logs.join('\n'));
    assert.deepEqual((await getJson(`${running.base}/api/v1/assets`)).json, assets);
    const resumed = await evaluate();
    assert.deepEqual([resumed.status, resumed.json.decision, resumed.json.price_source], [200, 'allow', 'oracle'], resumed.text);
  });

  it('is supervised again after a restart', async () => {
    // Both restarts are this test's own, on its own service, rather than the previous test's first one.
    const own = await startOnDevnet();
    try {
      for (const restarts of [1, 2]) {
        const { pid } = own.service.chain.devnet!.anvil;
        process.kill(pid, 'SIGKILL');
        const what = restarts === 1 ? 'restarted once' : 'restarted a second time';
        await until(what, () => chainStatus(own), (chain) => chain.status === 'ok' && chain.restarts === restarts);
      }
      assert.equal((await evaluate(own)).json.decision, 'allow');
    } finally {
      await own.stop();
    }
  });
});

describe('a redeployment that lands elsewhere', () => {
  let supervisor: DevnetSupervisor;
  const logs: string[] = [];
  let starts = 0;
  let refusedPid = 0;

  /** The real devnet, except that the restart's deployment reports another address for one token. */
  async function startDiffering(options: DevnetOptions): Promise<Devnet> {
    const devnet = await startDevnet(options);
    if (++starts === 1) return devnet;
    refusedPid = devnet.anvil.pid;
    const [first, ...rest] = devnet.registry.assets;
    return { ...devnet, registry: { ...devnet.registry, assets: [{ ...first, contract_address: `0x${'ee'.repeat(20)}` }, ...rest] } };
  }

  before(async () => {
    supervisor = await DevnetSupervisor.start({ log: (line) => logs.push(line), start: startDiffering, backoffMs: () => 0 });
  });
  after(() => supervisor.close());

  it('is refused: the devnet stays down with the reason, and the new anvil is stopped', async () => {
    process.kill(supervisor.current.anvil.pid, 'SIGKILL');
    const health = await until('the restart settles', async () => supervisor.health(), (h) => h.phase === 'failed' || h.restarts > 0);
    assert.equal(health.phase, 'failed');
    assert.match(health.reason ?? '', /does not match the one in use \(1 address\(es\) differ: asset \w+: 0x[0-9a-fA-F]{40} -> 0xeeee/);
    assert.equal(supervisor.downReason(), health.reason);
    assert.ok(logs.some((line) => line.startsWith('devnet: the redeployed devnet does not match')), logs.join('\n'));
    assert.equal(starts, 2);
    assert.throws(() => process.kill(refusedPid, 0), { code: 'ESRCH' }, 'the refused anvil is stopped');
  });
});
