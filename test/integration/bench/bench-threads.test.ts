// The bench's split of CPU by thread on a real service (offline registry): its preload names the scoring and tree threads
// (an older build's audit index thread, which the bench still tells apart when it measures one, is gone from this one).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { metered, warmUp } from '../../../bench/measure.js';
import { offlinePlan } from '../../../bench/offline-scenarios.js';
import { sampleRegistry, startService, THIS_BUILD, type RunningService } from '../../../bench/service.js';
import { clockTicksPerSecond } from '../../../bench/proc-stat.js';
import { PATHS } from '../../../src/catalogue/published-facts.js';
import { pollUntil } from '../../support/wait-until.js';

describe('npm run bench, CPU by thread', () => {
  let service: RunningService;

  before(async () => {
    service = await startService(THIS_BUILD, { REGISTRY_FILE: sampleRegistry(THIS_BUILD), WORKERS: '2', AUDIT_FSYNC: 'off' }, 60_000);
  });

  after(async () => {
    await service?.stop();
  });

  it('tells the event loop, both scoring threads and the tree thread apart', async () => {
    const kinds = await pollUntil('the service\'s threads as the preload noted them', async () => [...service.subject.threadKinds().values()].sort(), (seen) => seen.length >= 4);
    assert.deepEqual(kinds, ['loop', 'pool', 'pool', 'tree']);
    assert.equal(service.subject.threadKinds().get(service.pid), 'loop', 'the main thread is the pid');
    assert.equal(service.subject.companionPid(), null, 'an offline service starts no anvil');
  });

  it('reports a figure for every kind of thread over a load, and none for anvil', async () => {
    const plan = offlinePlan(`${service.base}${PATHS.analyzeFree}`);
    const { cpu } = await metered(service.subject, clockTicksPerSecond(), async () => {
      await warmUp(plan, 300, 8);
      return { requests: 300 };
    });
    for (const kind of ['loop', 'pool', 'tree', 'others', 'process'] as const) assert.equal(typeof cpu[kind], 'number', kind);
    assert.deepEqual([cpu.index, cpu.anvil], [null, null], 'no audit index thread, no anvil');
  });
});
