// `npm run devnet` as a user meets it: a devnet in a process of its own, and the registry it writes,
// which a service started apart with RPC_URL reads as the embedded devnet's service does.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { privateKeyToAccount } from 'viem/accounts';
import type { DemoWallet } from '../../../../src/tools/devnet/devnet.js';
import type { RegistryFile } from '../../../../src/facts/registry/registry.js';
import { pidExists } from '../../../support/devnet-helpers.js';
import { getJson, postJson, startTestService, type TestService } from '../../../support/service.js';
import { useTempDirs } from '../../../support/temp-dirs.js';
import { waitUntil } from '../../../support/wait-until.js';

const CLI = fileURLToPath(new URL('../../../../src/tools/devnet/cli.js', import.meta.url));
const tempDir = useTempDirs('devnet-cli-');

interface AddressBook {
  rpc_url: string;
  contracts: { serviceToken: string; stablecoin: string; stateView: string; poolManager: string; swapHelper: string; multicall3: string };
  wallets: DemoWallet[];
}

let child: ChildProcess;
let output = '';
let dir: string;

before(async () => {
  dir = await tempDir();
  child = spawn(process.execPath, [CLI], { env: { ...process.env, REGISTRY_OUT: join(dir, 'registry.json') }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
  await waitUntil(() => output.includes('Press Ctrl-C to stop.') || child.exitCode !== null, 'the devnet did not come up', 120_000, 20);
  assert.equal(child.exitCode, null, output);
});

after(() => {
  if (child.exitCode === null) child.kill('SIGKILL');
});

/** A bearer token for `wallet`, by SIWE sign-in with its (public, development) key. */
async function signIn(running: TestService, wallet: DemoWallet): Promise<string> {
  const { json: { message } } = await getJson(`${running.base}/api/v1/auth/nonce?address=${wallet.address}`);
  const signature = await privateKeyToAccount(wallet.privateKey).signMessage({ message });
  const answer = await postJson(`${running.base}/api/v1/auth/wallet`, { address: wallet.address, signature });
  assert.equal(answer.status, 200, answer.text);
  return answer.json.access_token;
}

describe('npm run devnet', () => {
  it('writes a registry on which a service started apart gives each demo wallet its tier', async () => {
    const book = JSON.parse(readFileSync(join(dir, 'devnet-contracts.json'), 'utf8')) as AddressBook;
    const registry = JSON.parse(readFileSync(join(dir, 'registry.json'), 'utf8')) as RegistryFile;
    // The facts behind tiers, payments, venue prices and batched reads, not only the assets.
    assert.deepEqual(registry.service_token, { address: book.contracts.serviceToken, decimals: 18 });
    assert.deepEqual(registry.settlement_asset, { address: book.contracts.stablecoin, decimals: 6 });
    assert.deepEqual(
      [registry.venue?.state_view, registry.venue?.pool_manager, registry.venue?.swap_helper, registry.venue?.quote_token.address, registry.multicall3],
      [book.contracts.stateView, book.contracts.poolManager, book.contracts.swapHelper, book.contracts.stablecoin, book.contracts.multicall3],
    );

    const running = await startTestService({ RPC_URL: book.rpc_url, REGISTRY_FILE: join(dir, 'registry.json'), RATE_LIMITS: 'off' });
    try {
      const tsla = registry.assets.find((asset) => asset.symbol === 'TSLA')!;
      const tiers = [];
      for (const wallet of book.wallets) {
        const answer = await postJson(`${running.base}/api/v1/analyze/trade`, {
          wallet: wallet.address, asset: 'TSLA', contract_address: tsla.contract_address, side: 'buy', amount: 1,
        }, { authorization: `Bearer ${await signIn(running, wallet)}` });
        assert.equal(answer.status, 200, answer.text);
        tiers.push(answer.json.tier);
      }
      // Holdings of 0 / 1,000 / 2,500 / 5,000 service tokens: Tier 1, 1, 2, 3, as on the embedded devnet.
      assert.deepEqual(tiers, book.wallets.map((wallet) => wallet.tier));
      assert.deepEqual(tiers, [1, 1, 2, 3]);
    } finally {
      await running.stop();
    }
  });

  it('stops its anvil and exits 0 on SIGINT', async () => {
    const anvilPid = Number(/anvil pid (\d+)/.exec(output)?.[1]);
    assert.ok(pidExists(anvilPid), output);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGINT');
    assert.equal(await exited, 0, output);
    assert.match(output, /SIGINT received, stopping anvil/);
    await waitUntil(() => !pidExists(anvilPid), 'anvil still runs after the devnet stopped', 5_000);
  });
});
