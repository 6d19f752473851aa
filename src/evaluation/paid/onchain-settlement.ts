// What a settlement that never answered did: the authorization's transfer, read back from the chain.
import { parseAbi, parseEventLogs, type Address, type Hex, type PublicClient } from 'viem';
import type { Authorization } from './payment-payload.js';
import type { PaymentTerms } from './terms.js';

const EIP3009_ABI = parseAbi([
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
]);

/** A settlement that lands this long after it was sent is not looked for (blocks back from the head). */
const LOOKBACK_BLOCKS = 2_000n;

/**
 * The transaction that used this authorization, when it paid exactly the terms: the nonce is
 * used, its `AuthorizationUsed` is in a recent block, and that transaction moved the amount
 * from the payer to `payTo` in the stablecoin. Null when any of that is not so; a failed read
 * is a throw (the caller then knows nothing, and says so).
 */
export async function findSettlement(client: PublicClient, terms: PaymentTerms, authorization: Authorization): Promise<Hex | null> {
  const asset = terms.asset as Address;
  const payer = authorization.from as Address;
  const nonce = authorization.nonce as Hex;
  const used = await client.readContract({ address: asset, abi: EIP3009_ABI, functionName: 'authorizationState', args: [payer, nonce] });
  if (!used) return null;
  const head = await client.getBlockNumber();
  const logs = await client.getLogs({
    address: asset,
    event: EIP3009_ABI[1],
    args: { authorizer: payer, nonce },
    fromBlock: head > LOOKBACK_BLOCKS ? head - LOOKBACK_BLOCKS : 0n,
    toBlock: head,
  });
  const hash = logs[0]?.transactionHash;
  if (!hash) return null;
  const receipt = await client.getTransactionReceipt({ hash });
  const paid = parseEventLogs({ abi: EIP3009_ABI, logs: receipt.logs, eventName: 'Transfer' }).some(
    (log) =>
      log.address.toLowerCase() === asset.toLowerCase() &&
      log.args.from.toLowerCase() === payer.toLowerCase() &&
      log.args.to.toLowerCase() === terms.payTo.toLowerCase() &&
      log.args.value === BigInt(terms.amount),
  );
  return receipt.status === 'success' && paid ? hash : null;
}
