// A paying client as an agent would run it: @x402/fetch's own quick start, and hand-signed payments for the refusal cases.
import { randomBytes } from 'node:crypto';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentRequirementsV1 } from '@x402/core/types';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { getAddress, toHex, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { TRANSFER_WITH_AUTHORIZATION_TYPES } from './devnet-abis.js';

export const NETWORK = 'eip155:4663';

/**
 * The stock x402 client, set up as @x402/fetch's README shows, with no scheme of our own. The devnet's
 * stablecoin is none of the library's default assets, so its spend controls allow it by address, at the price.
 */
export function stockClient(privateKey: Hex, asset: string): x402Client {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: privateKeyToAccount(privateKey), networks: [NETWORK] });
  return client.setSpendControls({ allowedAssets: [{ network: NETWORK, asset, maxAmountPerPayment: '100000' }] });
}

/** fetch that answers a 402 by paying it once, as `wrapFetchWithPayment` does for any agent. */
export function payingFetch(privateKey: Hex, asset: string): typeof fetch {
  return wrapFetchWithPayment(fetch, stockClient(privateKey, asset)) as typeof fetch;
}

export interface PaymentOptions {
  /** 1: the X-PAYMENT envelope; 2: PAYMENT-SIGNATURE with `accepted`. */
  version?: 1 | 2;
  /** Fields of the signed authorization to change (the signature covers them). */
  authorization?: Partial<{ to: string; value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex }>;
  /** Sign with this key while claiming to be the payer (a bad signature). */
  signWith?: Hex;
  /** Fields of the envelope (v1) or of `accepted` (v2) to change after signing. */
  envelope?: Record<string, unknown>;
  chainId?: number;
}

/** A fresh authorization nonce, as x402 clients make them: 32 random bytes. */
export function freshNonce(): Hex {
  return toHex(randomBytes(32));
}

/** Signs an EIP-3009 authorization for the challenge's terms by hand, so a test can bend any field. */
export async function signPayment(privateKey: Hex, requirements: PaymentRequirementsV1, options: PaymentOptions = {}): Promise<string> {
  const payer = privateKeyToAccount(privateKey);
  const now = BigInt(Math.floor(Date.now() / 1000));
  const message = {
    from: payer.address,
    to: getAddress(options.authorization?.to ?? requirements.payTo),
    value: options.authorization?.value ?? BigInt(requirements.maxAmountRequired),
    validAfter: options.authorization?.validAfter ?? 0n,
    validBefore: options.authorization?.validBefore ?? now + BigInt(requirements.maxTimeoutSeconds),
    nonce: options.authorization?.nonce ?? freshNonce(),
  };
  const signer = options.signWith ? privateKeyToAccount(options.signWith) : payer;
  const extra = requirements.extra as { name: string; version: string };
  const signature = await signer.signTypedData({
    domain: { name: extra.name, version: extra.version, chainId: options.chainId ?? 4663, verifyingContract: getAddress(requirements.asset) },
    types: { TransferWithAuthorization: TRANSFER_WITH_AUTHORIZATION_TYPES },
    primaryType: 'TransferWithAuthorization',
    message,
  });
  const authorization = {
    from: message.from,
    to: message.to,
    value: message.value.toString(),
    validAfter: message.validAfter.toString(),
    validBefore: message.validBefore.toString(),
    nonce: message.nonce,
  };
  const payload = { signature, authorization };
  if ((options.version ?? 1) === 1) {
    return encodePaymentSignatureHeader({ x402Version: 1, scheme: requirements.scheme, network: requirements.network, payload, ...options.envelope } as never);
  }
  const accepted = {
    scheme: requirements.scheme, network: requirements.network, asset: requirements.asset, amount: requirements.maxAmountRequired,
    payTo: requirements.payTo, maxTimeoutSeconds: requirements.maxTimeoutSeconds, extra: requirements.extra, ...options.envelope,
  };
  return encodePaymentSignatureHeader({ x402Version: 2, resource: { url: requirements.resource }, accepted, payload } as never);
}
