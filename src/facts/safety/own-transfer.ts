// A wallet's own transfer: a holder with no code (as a person's wallet is) calls the token's transfer itself, after the longest hold.
import { encodeFunctionData, erc20Abi, numberToHex, toFunctionSelector, type Address, type Hex } from 'viem';
import { balanceStorageKey, type BalanceSlot } from '../chain/balance-slot.js';
import type { LegResult } from './simulation-bundle.js';

/**
 * Every other simulated holder runs the probe's code, so a token that refuses senders without
 * code (`tx.origin == msg.sender`, `extcodesize(msg.sender) == 0`) let them all through while
 * real wallets cannot move it (ARCHITECTURE.md "Token safety"). This holder has no code: it is
 * given its tokens by state override at the first block and, in the last hold's block (when every
 * lock that opens within a month is open), sends them straight to the token as `from`, which
 * eth_simulateV1 runs without a signature.
 */
export interface OwnTransfer {
  holder: Address;
  recipient: Address;
  amount: bigint;
}

export const OWN_TRANSFER_LABELS = ['own.transfer', 'own.arrived'] as const;

/** The holder's balance, written into the token's proven balance slot. */
export function ownTransferBalance(own: OwnTransfer, slot: BalanceSlot): [string, Hex] {
  return [balanceStorageKey(own.holder, slot), numberToHex(own.amount, { size: 32 })];
}

/** The holder's transfer of all it holds to a wallet, then the wallet's balance read by `reader`. */
export function ownTransferCalls(own: OwnTransfer, token: Address, reader: Address): { label: string; from: Address; to: Address; data: Hex }[] {
  return [
    { label: OWN_TRANSFER_LABELS[0], from: own.holder, to: token, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [own.recipient, own.amount] }) },
    { label: OWN_TRANSFER_LABELS[1], from: reader, to: token, data: encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [own.recipient] }) },
  ];
}

/** What the wallet's own transfer did: went through only when it did not revert, did not answer false, and something arrived. */
export interface OwnTransferResult {
  ok: boolean;
  failureData: Hex | null;
}

/** The probe's own error for a transfer that answered false, so the reason reads the same. */
const RETURNED_FALSE = toFunctionSelector('error TransferReturnedFalse()');

export function readOwnTransfer(legs: ReadonlyMap<string, LegResult>): OwnTransferResult | null {
  const sent = legs.get(OWN_TRANSFER_LABELS[0]);
  const arrived = legs.get(OWN_TRANSFER_LABELS[1]);
  if (!sent || !arrived) return null;
  if (!sent.ok) return { ok: false, failureData: sent.data };
  const answeredFalse = sent.data.length >= 66 && BigInt(sent.data.slice(0, 66)) === 0n;
  const received = arrived.ok && arrived.data.length >= 66 ? BigInt(arrived.data.slice(0, 66)) : 0n;
  if (answeredFalse) return { ok: false, failureData: RETURNED_FALSE };
  return received > 0n ? { ok: true, failureData: null } : { ok: false, failureData: null };
}
