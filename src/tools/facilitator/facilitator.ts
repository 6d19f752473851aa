// An x402 facilitator from the field's own libraries: @x402/core's facilitator with @x402/evm's exact scheme.
import { x402Facilitator } from '@x402/core/facilitator';
import type { Network } from '@x402/core/types';
import { toFacilitatorEvmSigner } from '@x402/evm';
import { registerExactEvmScheme } from '@x402/evm/exact/facilitator';
import { createWalletClient, defineChain, http, publicActions, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

export interface FacilitatorSettings {
  rpcUrl: string;
  chainId: number;
  /** The account that submits `transferWithAuthorization` and pays its gas. */
  privateKey: Hex;
  /**
   * How often a settlement asks for its receipt. viem's default is 4 s; a verdict waits on
   * this, so a chain that mines at once (the devnet) wants tens of milliseconds.
   */
  receiptPollMs?: number;
}

export interface BuiltFacilitator {
  facilitator: x402Facilitator;
  network: Network;
  /** The gas payer's address. */
  address: string;
}

/** How long a settlement waits for its receipt before the facilitator reports it failed. */
const CONFIRMATION_TIMEOUT_MS = 20_000;

/**
 * The exact EVM scheme for `eip155:<chainId>` (its v2 code takes any EVM chain). Writes from
 * the one gas account are sent one at a time, so two settlements never race for a nonce.
 */
export function buildFacilitator(settings: FacilitatorSettings): BuiltFacilitator {
  const account = privateKeyToAccount(settings.privateKey);
  const chain = defineChain({
    id: settings.chainId,
    name: `eip155:${settings.chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [settings.rpcUrl] } },
  });
  const pollingInterval = settings.receiptPollMs ?? 1_000;
  const client = createWalletClient({ account, chain, pollingInterval, transport: http(settings.rpcUrl, { retryCount: 0, timeout: 10_000 }) }).extend(publicActions);
  const inTurn = serial();
  const signer = toFacilitatorEvmSigner(
    {
      address: account.address,
      readContract: (args) => client.readContract(args as never),
      verifyTypedData: (args) => client.verifyTypedData(args as never),
      writeContract: (args) => inTurn(() => client.writeContract(args as never)),
      sendTransaction: (args) => inTurn(() => client.sendTransaction(args as never)),
      waitForTransactionReceipt: (args) => client.waitForTransactionReceipt(args),
      getCode: (args) => client.getCode(args),
    },
    { confirmationTimeoutMs: CONFIRMATION_TIMEOUT_MS },
  );
  const network = `eip155:${settings.chainId}` as Network;
  const facilitator = new x402Facilitator();
  registerExactEvmScheme(facilitator, { signer, networks: network });
  return { facilitator, network, address: account.address };
}

/** Runs tasks one after another, each starting when the previous one settled. */
function serial(): <T>(task: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(task: () => Promise<T>) => {
    const run = tail.then(task, task);
    tail = run.catch(() => undefined);
    return run;
  };
}
