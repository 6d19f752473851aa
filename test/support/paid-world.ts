// One devnet, one facilitator (@x402/core + @x402/evm) and paid services on them, for the x402 tests.
import assert from 'node:assert/strict';
import type { PaymentRequirementsV1 } from '@x402/core/types';
import type { Address, PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { ServiceOverrides } from '../../src/assembly/app.js';
import { startDevnet, type Devnet } from '../../src/tools/devnet/devnet.js';
import { buildFacilitator } from '../../src/tools/facilitator/facilitator.js';
import { serveFacilitator, type RunningFacilitator } from '../../src/tools/facilitator/http-server.js';
import { writeRegistryFile } from './chain-support.js';
import { stablecoinAbi } from './devnet-abis.js';
import { publicClientFor } from './devnet-helpers.js';
import { getJson, postJson, startTestService, type HttpResult, type TestService } from './service.js';

export const PRICE = 100_000n;

export class PaidWorld {
  private constructor(
    readonly devnet: Devnet,
    readonly chain: PublicClient,
    readonly facilitator: RunningFacilitator,
    readonly registryFile: string,
  ) {}

  static async start(dir: string): Promise<PaidWorld> {
    const devnet = await startDevnet();
    const built = buildFacilitator({ rpcUrl: devnet.rpcUrl, chainId: devnet.chainId, privateKey: devnet.facilitator.privateKey, receiptPollMs: 20 });
    const facilitator = await serveFacilitator(built.facilitator, '127.0.0.1', 0, () => undefined);
    return new PaidWorld(devnet, publicClientFor(devnet), facilitator, writeRegistryFile(devnet, dir));
  }

  /** A service on this devnet paying out to the treasury through `facilitatorUrl` (this world's by default). */
  service(env: Record<string, string> = {}, facilitatorUrl = this.facilitator.url, overrides: ServiceOverrides = {}): Promise<TestService> {
    return startTestService(
      {
        RPC_URL: this.devnet.rpcUrl, REGISTRY_FILE: this.registryFile, PAY_TO_ADDRESS: this.devnet.treasury,
        FACILITATOR_URL: facilitatorUrl, RATE_LIMIT_IP_FREE: '1000', ...env,
      },
      undefined,
      overrides,
    );
  }

  /** A trade for a fresh wallet of its own, so windows and audit chains start empty. 20 TSLA is about 7,000 USD: over Tier 1's 5,000. */
  trade(overrides: Record<string, unknown> = {}): Record<string, unknown> {
    const tsla = this.devnet.registry.assets.find((asset) => asset.symbol === 'TSLA')!;
    return { wallet: privateKeyToAccount(generatePrivateKey()).address, asset: 'TSLA', contract_address: tsla.contract_address, side: 'buy', amount: 20, ...overrides };
  }

  /** The requirements an unpaid request is answered with. */
  async challenge(base: string): Promise<PaymentRequirementsV1> {
    const answer = await postJson(`${base}/api/x402/analyze`, this.trade());
    assert.equal(answer.status, 402, answer.text);
    return answer.json.accepts[0] as PaymentRequirementsV1;
  }

  usdc(holder: string): Promise<bigint> {
    return this.chain.readContract({ address: this.devnet.contracts.stablecoin, abi: stablecoinAbi, functionName: 'balanceOf', args: [holder as Address] });
  }

  async close(): Promise<void> {
    await this.facilitator.close();
    await this.devnet.close();
  }
}

export function payWith(base: string, body: Record<string, unknown>, payment: string, header = 'x-payment'): Promise<HttpResult> {
  return postJson(`${base}/api/x402/analyze`, body, { [header]: payment });
}

export async function walletRecords(base: string, wallet: string): Promise<Record<string, unknown>[]> {
  const listed = await getJson(`${base}/api/v1/audit/wallet/${wallet}?limit=100`);
  assert.equal(listed.status, 200, listed.text);
  return listed.json.records as Record<string, unknown>[];
}
