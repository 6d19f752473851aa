// Whether a payment's EIP-3009 authorization is signed by its payer: asked before a kept verdict is released.
import { authorizationTypes } from '@x402/evm';
import { getAddress, type Hex, type PublicClient } from 'viem';
import type { ReadPayment } from './payment-payload.js';
import type { PaymentTerms } from './terms.js';

/** True when the payer signed this authorization for these terms' token and chain; rejects when the chain cannot say. */
export type PayerSignatureCheck = (payment: ReadPayment) => Promise<boolean>;

/**
 * The check the facilitator makes at /verify, made again where no facilitator is asked (ARCHITECTURE.md
 * "Paid evaluation"): a replayed or owed verdict is found by payer and nonce alone, which anyone who saw
 * the payment knows. viem's verifyTypedData recovers an EOA's signature locally ('eoa' mode) and asks the
 * chain only for a signature that is not one (a contract wallet's, ERC-1271/6492).
 */
export function payerSignatureCheck(client: PublicClient, terms: PaymentTerms): PayerSignatureCheck {
  const chainId = Number(terms.network.split(':')[1]);
  const domain = { name: terms.eip712.name, version: terms.eip712.version, chainId, verifyingContract: getAddress(terms.asset) };
  return (payment) => {
    const { from, to, value, validAfter, validBefore, nonce } = payment.authorization;
    return client.verifyTypedData({
      address: getAddress(from),
      domain,
      types: authorizationTypes,
      primaryType: 'TransferWithAuthorization',
      message: { from: getAddress(from), to: getAddress(to), value: BigInt(value), validAfter: BigInt(validAfter), validBefore: BigInt(validBefore), nonce: nonce as Hex },
      signature: (payment.payload.payload as { signature: Hex }).signature,
      mode: 'eoa',
    });
  };
}
