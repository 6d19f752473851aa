// Assembles the paid channel: its terms, its facilitator (FACILITATOR_URL, or one embedded beside the devnet), its ledger.
import { parseAbi, type Address, type PublicClient } from 'viem';
import { PATHS, PAYMENT } from '../catalogue/published-facts.js';
import type { Config } from '../config.js';
import type { EntryDeps } from '../evaluation/entry.js';
import { logDetail, type Logger } from '../catalogue/failures.js';
import type { CacheStore } from '../store/cache-store.js';
import { HttpFacilitator } from '../evaluation/paid/facilitator-client.js';
import { findSettlement } from '../evaluation/paid/onchain-settlement.js';
import { PaymentLedger, type PaidDeps } from '../evaluation/paid/paid-evaluation.js';
import { payerSignatureCheck } from '../evaluation/paid/payer-signature.js';
import type { PaymentTerms } from '../evaluation/paid/terms.js';
import type { ChainReads } from '../facts/chain/chain-reads.js';
import type { ChainContext } from './attach-chain.js';

export interface PaidChannel {
  /** Null when the service cannot take payments: no settlement asset, payee, chain or facilitator. */
  paid: PaidDeps | null;
  /** Why `paid` is null, for the start-up log. */
  off: string | null;
  close(): Promise<void>;
}

const EIP712_DOMAIN_ABI = parseAbi(['function name() view returns (string)', 'function version() view returns (string)']);

/**
 * - FACILITATOR_URL set: that facilitator.
 * - the embedded devnet: a facilitator on a loopback port, settling with anvil account 8.
 * - otherwise: no paid channel (its routes answer 503 facilitator_unavailable).
 */
export async function attachPaidChannel(
  config: Readonly<Config>, chain: ChainContext, entry: EntryDeps, store: CacheStore, publicBase: () => string, log: Logger,
  metrics?: PaidDeps['metrics'],
): Promise<PaidChannel> {
  const off = (reason: string): PaidChannel => ({ paid: null, off: reason, close: async () => undefined });
  const asset = chain.registry.settlementAsset;
  const payTo = config.payToAddress ?? chain.devnet?.treasury ?? null;
  if (!asset) return off('the registry names no settlement_asset');
  if (!payTo) return off('PAY_TO_ADDRESS is not set');
  if (!chain.client) return off('no chain node to read the stablecoin\'s EIP-712 domain from (offline registry)');
  let facilitatorUrl = config.facilitatorUrl;
  let close: () => Promise<void> = async () => undefined;
  const devnet = chain.devnet;
  if (!facilitatorUrl && devnet && chain.rpcUrl) {
    const { buildFacilitator } = await import('../tools/facilitator/facilitator.js');
    const { serveFacilitator } = await import('../tools/facilitator/http-server.js');
    // Anvil mines each transaction at once: the receipt is there within milliseconds.
    const built = buildFacilitator({ rpcUrl: chain.rpcUrl, chainId: chain.registry.chainId, privateKey: devnet.facilitator.privateKey, receiptPollMs: 20 });
    const running = await serveFacilitator(built.facilitator, '127.0.0.1', 0, log);
    facilitatorUrl = running.url;
    close = running.close;
  }
  if (!facilitatorUrl) return off('FACILITATOR_URL is not set');
  let eip712: { name: string; version: string };
  try {
    eip712 = await eip712Domain(chain.client, asset.address as Address);
  } catch (error) {
    // A node that is down at start must not stop the service: only payments stay off (503).
    // The reason is published (503s, the x402 manifest): the node's own words go to the log only.
    await close();
    log(`x402: reading the settlement stablecoin's EIP-712 domain failed: ${logDetail(error)}`);
    return off("the chain node did not answer when the settlement stablecoin's EIP-712 domain was read at start; restart once it answers");
  }
  try {
    const terms: PaymentTerms = {
      network: `eip155:${chain.registry.chainId}`,
      asset: asset.address,
      amount: PAYMENT.amountBaseUnits,
      payTo,
      get resource() {
        return `${publicBase()}${PATHS.x402Analyze}`;
      },
      maxTimeoutSeconds: PAYMENT.maxTimeoutSeconds,
      eip712,
    };
    const client = chain.client;
    const paid: PaidDeps = {
      entry, terms, facilitator: new HttpFacilitator(facilitatorUrl), ledger: new PaymentLedger(store), log, metrics,
      settledOnChain: (authorization) => findSettlement(client, terms, authorization),
      payerSigned: payerSignatureCheck(client, terms),
      chainSeconds: chainClock(chain.reads),
    };
    const price = `${Number(terms.amount) / 10 ** PAYMENT.assetDecimals} of ${terms.eip712.name}`;
    log(`x402: ${price} per paid evaluation to ${payTo}; facilitator ${facilitatorUrl}${config.facilitatorUrl ? '' : ' (embedded)'}`);
    return { paid, off: null, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * Payment windows' clock: the latest block's timestamp, as the chain judges an authorization by it. A node
 * that does not answer leaves the wall clock: this check only refuses, and the evaluation fails closed on its own.
 */
function chainClock(reads: ChainReads | null): () => Promise<number> {
  const wall = () => Math.floor(Date.now() / 1000);
  if (!reads) return async () => wall();
  return () => reads.head.use().then((head) => Number(head.timestamp), wall);
}

/** The name and version x402 clients sign the EIP-3009 authorization under (USDC's are "USD Coin" and "2"). */
async function eip712Domain(client: PublicClient, asset: Address): Promise<{ name: string; version: string }> {
  const [name, version] = await Promise.all([
    client.readContract({ address: asset, abi: EIP712_DOMAIN_ABI, functionName: 'name' }),
    client.readContract({ address: asset, abi: EIP712_DOMAIN_ABI, functionName: 'version' }),
  ]);
  return { name, version };
}
