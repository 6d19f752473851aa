// Token safety against the real devnet, one checker over a transport that counts HTTP requests: the two-round-trip budget, outside calls, unchecked owner powers, a timelocked capped mint and timelocks by behaviour.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPublicClient, getAddress, http, keccak256, pad, parseAbi, toHex, type Address, type PublicClient } from 'viem';
import { compiledSafetyProbe } from '../../../../src/assembly/fact-sources.js';
import { robinhoodChain } from '../../../../src/facts/chain/public-client.js';
import { registryFromFile } from '../../../../src/facts/registry/registry.js';
import { CompiledProbeCode } from '../../../../src/facts/safety/probe-code.js';
import { roleMemberSlot } from '../../../../src/facts/safety/timelock-probe.js';
import { TokenSafetyChecker, type TokenSafetyReport } from '../../../../src/facts/safety/token-safety.js';
import { MemoryStore } from '../../../../src/store/memory-store.js';
import { deployCorpus, type CorpusToken } from '../../../../src/tools/devnet/deploy-corpus.js';
import { startDevnet, type Devnet } from '../../../../src/tools/devnet/devnet.js';

const IDS = [
  'ev-hidden-seize', 'oc-owned-limiter', 'oc-registry-caller', 'role-mintable', 'tl-capped-mint-narrow', 'tl-capped-mint-wide',
  'tl-compound-capped-mint-narrow', 'tl-fake-at-once-capped-mint-narrow', 'tl-fake-short-wait-capped-mint-narrow', 'tl-fake-no-queue-capped-mint-narrow',
];
const NOW = Date.UTC(2026, 10, 17, 15, 0, 0);

/** Every HTTP request the checker sends the node, with the JSON-RPC methods it carried. */
const requests: string[][] = [];
let devnet: Devnet;
let checker: TokenSafetyChecker;
let tokens: Map<string, CorpusToken>;
let reader: PublicClient;

before(async () => {
  devnet = await startDevnet();
  tokens = new Map((await deployCorpus(devnet, { ids: IDS })).map((token) => [token.id, token]));
  const transport = http(devnet.rpcUrl, {
    batch: true, retryCount: 0,
    onFetchRequest: async (request) => {
      const body = JSON.parse(await request.clone().text()) as { method: string } | { method: string }[];
      requests.push((Array.isArray(body) ? body : [body]).map((call) => call.method));
    },
  });
  const client = createPublicClient({ chain: robinhoodChain(devnet.rpcUrl), transport }) as PublicClient;
  reader = createPublicClient({ chain: robinhoodChain(devnet.rpcUrl), transport: http(devnet.rpcUrl) }) as PublicClient;
  const store = new MemoryStore(() => NOW);
  checker = new TokenSafetyChecker({ client, registry: registryFromFile(devnet.registry), store, code: new CompiledProbeCode(compiledSafetyProbe), now: () => NOW });
  // As the service does at start: the quote token's balance slot and the probe's code, once per process.
  await checker.prepare();
});
after(() => devnet.close());

/** A cold check of a corpus token, and the HTTP requests it sent. */
async function cold(id: string): Promise<{ report: TokenSafetyReport; trips: string[][] }> {
  requests.length = 0;
  const report = await checker.check(tokens.get(id)!.address);
  return { report, trips: [...requests] };
}

const codes = (factors: string[]) => factors.map((factor) => /^(ADVISORY: )?[A-Z_0-9]+/.exec(factor)![0]);

describe('the round-trip budget', () => {
  it('checks a token with owner powers in two HTTP requests: every read, then one eth_simulateV1 and one trace', async () => {
    const { report, trips } = await cold('ev-hidden-seize');
    assert.equal(report.severity, 'danger');
    assert.ok(codes(report.risk_factors).includes('OWNER_CAN_SEIZE'), report.risk_factors.join(' | '));
    assert.equal(trips.length, 2, JSON.stringify(trips));
    assert.ok(!trips[0].includes('eth_simulateV1'), JSON.stringify(trips[0]));
    assert.equal(trips[1].filter((method) => method === 'eth_simulateV1').length, 1, JSON.stringify(trips[1]));
    assert.equal(trips[1].filter((method) => method === 'debug_traceCall').length, 1, JSON.stringify(trips[1]));
  });
});

describe('outside calls in the transfer path', () => {
  it('warns when every transfer asks a contract the token\'s owner owns, though it lets every sell through today', async () => {
    const { report } = await cold('oc-owned-limiter');
    const limiter = report.risk_factors.find((factor) => factor.startsWith('OUTSIDE_CALL_OWNED'));
    assert.equal(report.severity, 'warn', report.risk_factors.join(' | '));
    assert.equal(report.is_honeypot, false);
    assert.deepEqual([report.sell_simulation.ok, codes(report.risk_factors)], [true, ['OUTSIDE_CALL_OWNED']]);
    assert.match(limiter!, new RegExp(`^OUTSIDE_CALL_OWNED: a holder's transfer calls 0x[0-9a-fA-F]{40}, a contract the registry does not list whose owner\\(\\) is the token's owner ${devnet.deployer}; `, 'i'));
  });

  it('calls a token whose transfers ask a registry contract (Multicall3) safe', async () => {
    const { report } = await cold('oc-registry-caller');
    assert.deepEqual([report.severity, report.risk_factors], ['safe', []]);
  });
});

describe('owner powers that could not be checked', () => {
  it('calls the holder of a role as an admin when no owner() answers, so no privileged function is left unchecked', async () => {
    const { report, trips } = await cold('role-mintable');
    assert.equal(trips.length, 2, JSON.stringify(trips));
    assert.equal(report.severity, 'warn');
    assert.deepEqual(report.risk_factors.filter((factor) => factor.startsWith('OWNER_POWERS_UNCHECKED')), []);
    const admin = report.risk_factors.filter((factor) => factor.startsWith('OTHER_ADMIN'));
    assert.equal(admin.length, 1, report.risk_factors.join(' | '));
    assert.match(admin[0], /^OTHER_ADMIN: 0x[0-9a-fA-F]{40} \(granted a role \(RoleGranted\)\), not owner\(\), gets through mint\(address,uint256\), which refuse a stranger making the same call$/);
  });
});

describe('a capped mint behind a timelock', () => {
  it('excuses a mint capped near the supply whose owner is a timelock of two days or more', async () => {
    const { report } = await cold('tl-capped-mint-narrow');
    assert.equal(report.severity, 'safe', report.risk_factors.join(' | '));
    assert.deepEqual(codes(report.risk_factors), ['ADVISORY: MINT_CAPABILITY']);
    assert.match(report.risk_factors[0], /^ADVISORY: MINT_CAPABILITY: mint\(address,uint256\) let the timelock owner 0x[0-9a-fA-F]{40} \(minimum delay 2 days\) create new supply \(capped at 5% above the supply, announced 2 days ahead\)$/);
  });

  it('warns when the cap leaves room for far more supply, whatever the delay; the timelock is asked inside the simulation', async () => {
    const { report, trips } = await cold('tl-capped-mint-wide');
    assert.equal(trips.length, 2, JSON.stringify(trips));
    assert.equal(report.severity, 'warn');
    assert.deepEqual(codes(report.risk_factors), ['MINT_CAPABILITY']);
    assert.match(report.risk_factors[0], /the timelock owner 0x[0-9a-fA-F]{40} \(minimum delay 2 days\) create new supply$/);
  });
});

/** The token's owner(), read apart from the counted transport. */
async function ownerOf(id: string): Promise<Address> {
  return reader.readContract({ address: tokens.get(id)!.address, abi: parseAbi(['function owner() view returns (address)']), functionName: 'owner' });
}

describe('a timelock by behaviour, whatever its ABI', () => {
  it('grants the probe where the deployed locks keep their permissions: OpenZeppelin\'s role members at roleMemberSlot, Compound\'s admin at slot 0', async () => {
    const oz = await ownerOf('tl-capped-mint-narrow');
    for (const role of ['PROPOSER_ROLE', 'EXECUTOR_ROLE']) {
      const member = await reader.getStorageAt({ address: oz, slot: roleMemberSlot(keccak256(toHex(role)), devnet.deployer) });
      assert.equal(member, pad('0x01'), role);
    }
    const compound = await ownerOf('tl-compound-capped-mint-narrow');
    const admin = await reader.getStorageAt({ address: compound, slot: pad('0x00') });
    assert.equal(getAddress(`0x${admin!.slice(26)}`), devnet.deployer);
  });

  it('excuses a capped mint owned by a Compound-style Timelock (delay(), queueTransaction with an eta): a call queued through it waited two days and then ran', async () => {
    const { report, trips } = await cold('tl-compound-capped-mint-narrow');
    assert.equal(trips.length, 2, JSON.stringify(trips));
    assert.equal(report.severity, 'safe', report.risk_factors.join(' | '));
    assert.deepEqual(codes(report.risk_factors), ['ADVISORY: MINT_CAPABILITY']);
    assert.match(report.risk_factors[0], /^ADVISORY: MINT_CAPABILITY: mint\(address,uint256\) let the timelock owner 0x[0-9a-fA-F]{40} \(minimum delay 2 days\) create new supply \(capped at 5% above the supply, announced 2 days ahead\)$/);
  });

  it('warns on a capped mint whose owner answers getMinDelay() with two days but runs a scheduled call at once', async () => {
    const { report, trips } = await cold('tl-fake-at-once-capped-mint-narrow');
    assert.equal(trips.length, 2, JSON.stringify(trips));
    assert.equal(report.severity, 'warn', report.risk_factors.join(' | '));
    assert.deepEqual(codes(report.risk_factors), ['MINT_CAPABILITY']);
    assert.match(report.risk_factors[0], /^MINT_CAPABILITY: mint\(address,uint256\) let the owner contract 0x[0-9a-fA-F]{40} \(it answers getMinDelay\(\) with 2 days, but ran a call queued through it at once\) create new supply$/);
  });

  it('warns on a capped mint whose owner answers getMinDelay() with two days and honours a scheduled time, but schedules a wait under two days', async () => {
    const { report } = await cold('tl-fake-short-wait-capped-mint-narrow');
    assert.equal(report.severity, 'warn', report.risk_factors.join(' | '));
    assert.deepEqual(codes(report.risk_factors), ['MINT_CAPABILITY']);
    assert.match(report.risk_factors[0], /^MINT_CAPABILITY: mint\(address,uint256\) let the owner contract 0x[0-9a-fA-F]{40} \(it answers getMinDelay\(\) with 2 days, but ran a call queued through it before 2 days had passed\) create new supply$/);
  });

  it('warns on a capped mint whose owner answers getMinDelay() with two days but has no queue to put a call in', async () => {
    const { report } = await cold('tl-fake-no-queue-capped-mint-narrow');
    assert.equal(report.severity, 'warn', report.risk_factors.join(' | '));
    assert.deepEqual(codes(report.risk_factors), ['MINT_CAPABILITY']);
    assert.match(report.risk_factors[0], /^MINT_CAPABILITY: mint\(address,uint256\) let the owner contract 0x[0-9a-fA-F]{40} \(it answers getMinDelay\(\) with 2 days, but no call could be queued through it as its proposer or admin, so no delay was shown\) create new supply$/);
  });
});
