// EIP-712 trade permits: what an `allow` verdict authorises, signed for the on-chain TradePermitGuard.
import { randomBytes } from 'node:crypto';
import type { Address, Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { unitsAtMost } from '../../risk/amount-grid.js';

/** The guard's EIP-712 domain name and version (contracts/permits/TradePermitGuard.sol). */
export const PERMIT_DOMAIN = Object.freeze({ name: 'TradePermitGuard', version: '1' } as const);

/** Field order and types are the guard's TRADE_PERMIT_TYPEHASH; change both together. */
export const TRADE_PERMIT_TYPES = {
  TradePermit: [
    { name: 'wallet', type: 'address' },
    { name: 'token', type: 'address' },
    { name: 'side', type: 'uint8' },
    { name: 'maxAmount', type: 'uint256' },
    { name: 'maxNotionalUsdCents', type: 'uint256' },
    { name: 'expiry', type: 'uint64' },
    { name: 'auditSeq', type: 'uint64' },
    { name: 'auditHash', type: 'bytes32' },
    { name: 'nonce', type: 'uint256' },
  ],
} as const;

/** `side` on chain: 0 buy, 1 sell. */
export const SIDES = Object.freeze({ buy: 0, sell: 1 } as const);

export interface PermitSettings {
  signer: PrivateKeyAccount;
  chainId: number;
  /** The TradePermitGuard the permits are for (the EIP-712 verifyingContract). */
  guard: Address;
  ttlSeconds: number;
}

/** What the verdict says was allowed and under which audit record. */
export interface AllowedTrade {
  wallet: string;
  token: string;
  side: 'buy' | 'sell';
  amount: number;
  decimals: number;
  notionalUsd: number;
  auditSeq: number;
  auditHash: string;
  nowMs: number;
}

/** The permit as JSON: uint256 values as decimal strings, so no precision is lost. */
export interface SignedPermit {
  domain: { name: typeof PERMIT_DOMAIN.name; version: typeof PERMIT_DOMAIN.version; chainId: number; verifyingContract: string };
  message: {
    wallet: string; token: string; side: 0 | 1; maxAmount: string; maxNotionalUsdCents: string;
    expiry: number; auditSeq: number; auditHash: string; nonce: string;
  };
  signer: string;
  signature: string;
}

/** Signs one permit; `maxAmount` is the amount evaluated, in base units, never rounded up. */
export async function signTradePermit(settings: PermitSettings, trade: AllowedTrade): Promise<SignedPermit> {
  const maxAmount = unitsAtMost(trade.amount, trade.decimals);
  if (maxAmount === null) throw new Error('the allowed amount has no base-unit form');
  const message = {
    wallet: trade.wallet as Address,
    token: trade.token as Address,
    side: SIDES[trade.side],
    maxAmount,
    maxNotionalUsdCents: BigInt(Math.round(trade.notionalUsd * 100)),
    expiry: BigInt(Math.floor(trade.nowMs / 1000) + settings.ttlSeconds),
    auditSeq: BigInt(trade.auditSeq),
    auditHash: `0x${trade.auditHash}` as Hex,
    nonce: BigInt(`0x${randomBytes(32).toString('hex')}`),
  };
  const domain = { ...PERMIT_DOMAIN, chainId: settings.chainId, verifyingContract: settings.guard };
  const signature = await settings.signer.signTypedData({ domain, types: TRADE_PERMIT_TYPES, primaryType: 'TradePermit', message });
  return {
    domain,
    message: {
      ...message,
      maxAmount: String(message.maxAmount),
      maxNotionalUsdCents: String(message.maxNotionalUsdCents),
      expiry: Number(message.expiry),
      auditSeq: trade.auditSeq,
      nonce: String(message.nonce),
    },
    signer: settings.signer.address,
    signature,
  };
}
