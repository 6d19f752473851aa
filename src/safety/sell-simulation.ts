// A live sell of one token in an eth_call: a throwaway probe given a balance by state override sells it.
import { randomBytes } from 'node:crypto';
import {
  decodeErrorResult,
  decodeFunctionResult,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  numberToHex,
  parseAbi,
  type Address,
  type Hex,
  type PublicClient,
  type StateOverride,
} from 'viem';
import { balanceStorageKey, searchBalanceSlot } from '../chain/balance-slot.js';
import { ChainUnavailableError, isRevert, revertData } from '../chain/errors.js';
import { multicall3Abi, readMany } from '../chain/multicall.js';
import { poolIdOf, stateViewAbi, venuePoolKey, type PoolKey } from '../chain/venue-pool.js';
import type { Venue } from '../registry/registry.js';
import type { ProbeCode } from './probe-code.js';

const POOL_KEY = '(address currency0, address currency1, uint24 fee, int24 tickSpacing, address hooks)';
export const swapHelperAbi = parseAbi([
  `function swapExactInFromHelper(address manager, ${POOL_KEY} key, bool zeroForOne, uint256 amountIn, uint256 minAmountOut, address recipient) returns (uint256 paid, uint256 amountOut, uint256 received)`,
]);

/** Errors a sell commonly reverts with, so the reason reads as a name. */
const revertAbi = parseAbi([
  'error TransferNotAllowed()',
  'error EnforcedPause()',
  'error AccountBlacklisted(address account)',
  'error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)',
  'error SafeERC20FailedOperation(address token)',
  'error WrappedError(address target, bytes4 selector, bytes reason, bytes details)',
  'error PoolNotInitialized()',
  'error CurrencyNotSettled()',
  'error TooLittleReceived(uint256 amountOut, uint256 minAmountOut)',
  'error InsufficientBalance()',
]);

/** The TokenSafety `sell_simulation` object. Amounts are base units as decimal strings. */
export interface SellSimulation {
  /** The sell (or transfer) went through. */
  ok: boolean;
  /** False when no simulation could run; `detail` says why. */
  simulated: boolean;
  /** True when the contract does not answer balanceOf(address) at all. */
  not_a_token: boolean;
  method: 'venue_v4' | 'transfer' | null;
  probe: Address | null;
  amount_in: string | null;
  /** What the pool (or the transfer's recipient) really received of the token. */
  paid: string | null;
  /** What the probe received of the quote token (venue) or the recipient of the token (transfer). */
  received: string | null;
  /** Share of amount_in lost on the way in, in basis points. */
  tax_bps: number | null;
  revert_reason: string | null;
  detail: string;
}

export interface SellDeps {
  client: PublicClient;
  multicall3: Address;
  venue: Venue | null;
  code: ProbeCode;
}

/**
 * Sells one whole token through the venue pool when it has liquidity, else transfers it to
 * a second throwaway address. The probe is fresh per check and never the deployer or any
 * real holder, so no allow-list or fee exemption applies to it. Rejects when the node fails.
 */
export async function simulateSell(deps: SellDeps, token: Address, decimals: number): Promise<SellSimulation> {
  const probe = throwawayAddress();
  const search = await searchBalanceSlot(deps.client, token, probe, null);
  if (search.found === null) {
    return search.balanceOfReverts
      ? notSimulated('the contract does not answer balanceOf(address); it is not an ERC-20 token', true)
      : notSimulated('no storage slot of the token could be proven to hold balances, so the probe could not be funded');
  }
  const slot = search.found;
  const amount = 10n ** BigInt(decimals);
  const funding = { address: token, stateDiff: [{ slot: balanceStorageKey(probe, slot), value: numberToHex(amount, { size: 32 }) }] };
  const key = deps.venue ? venuePoolKey(deps.venue, token) : null;
  if (key && deps.venue && (await poolIsLive(deps, key))) return sellThroughPool(deps, deps.venue, key, token, probe, amount, funding);
  return transferProbe(deps, token, probe, amount, funding);
}

async function poolIsLive(deps: SellDeps, key: PoolKey): Promise<boolean> {
  const stateView = getAddress(deps.venue!.state_view);
  const poolId = poolIdOf(key);
  const [slot0, liquidity] = await readMany(deps.client, deps.multicall3, [
    { address: stateView, abi: stateViewAbi, functionName: 'getSlot0', args: [poolId] },
    { address: stateView, abi: stateViewAbi, functionName: 'getLiquidity', args: [poolId] },
  ], `venue read of pool ${poolId}`);
  return slot0.ok && liquidity.ok && (slot0.value as readonly bigint[])[0] !== 0n && (liquidity.value as bigint) > 0n;
}

async function sellThroughPool(
  deps: SellDeps, venue: Venue, key: PoolKey, token: Address, probe: Address, amount: bigint, funding: StateOverride[number],
): Promise<SellSimulation> {
  const base = { method: 'venue_v4' as const, not_a_token: false, probe, amount_in: amount.toString() };
  const data = encodeFunctionData({
    abi: swapHelperAbi,
    functionName: 'swapExactInFromHelper',
    args: [getAddress(venue.pool_manager), key, key.currency0 === token, amount, 0n, probe],
  });
  const outcome = await callAt(deps, probe, data, [{ address: probe, code: await deps.code.swapHelper() }, funding]);
  if (!outcome.ok) {
    return { ...base, ok: false, simulated: true, paid: null, received: null, tax_bps: null, revert_reason: outcome.reason, detail: 'the sell through the venue pool reverted' };
  }
  const [paid, , received] = decodeFunctionResult({ abi: swapHelperAbi, functionName: 'swapExactInFromHelper', data: outcome.data });
  const detail = 'sold one token through the venue pool from a throwaway probe';
  return { ...base, ok: true, simulated: true, paid: paid.toString(), received: received.toString(), tax_bps: taxBps(amount, paid), revert_reason: null, detail };
}

/** No pool: Multicall3's code at the probe transfers to a second address and measures what arrived. */
async function transferProbe(deps: SellDeps, token: Address, probe: Address, amount: bigint, funding: StateOverride[number]): Promise<SellSimulation> {
  const recipient = throwawayAddress();
  const base = { method: 'transfer' as const, not_a_token: false, probe, amount_in: amount.toString() };
  const balance = encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [recipient] });
  const transfer = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [recipient, amount] });
  const calls = [balance, transfer, balance].map((callData) => ({ target: token, allowFailure: true, callData }));
  const data = encodeFunctionData({ abi: multicall3Abi, functionName: 'aggregate3', args: [calls] });
  const outcome = await callAt(deps, probe, data, [{ address: probe, code: await deps.code.multicall() }, funding]);
  const results = outcome.ok ? decodeFunctionResult({ abi: multicall3Abi, functionName: 'aggregate3', data: outcome.data }) : null;
  const moved = results?.[1];
  if (!outcome.ok || !results || !moved?.success || returnedFalse(moved.returnData)) {
    const reason = outcome.ok ? (moved?.success ? 'transfer returned false' : describeRevert(moved?.returnData ?? null)) : outcome.reason;
    return { ...base, ok: false, simulated: true, paid: null, received: null, tax_bps: null, revert_reason: reason, detail: 'the token has no venue pool and a transfer from the probe reverted' };
  }
  const arrived = readUint(results[2].returnData) - readUint(results[0].returnData);
  const detail = 'the token has no venue pool; transferred one token from a throwaway probe instead';
  return { ...base, ok: true, simulated: true, paid: arrived.toString(), received: arrived.toString(), tax_bps: taxBps(amount, arrived), revert_reason: null, detail };
}

type CallOutcome = { ok: true; data: Hex } | { ok: false; reason: string };

async function callAt(deps: SellDeps, to: Address, data: Hex, stateOverride: StateOverride): Promise<CallOutcome> {
  try {
    const result = await deps.client.call({ to, data, stateOverride });
    return { ok: true, data: result.data ?? '0x' };
  } catch (error) {
    if (!isRevert(error)) throw new ChainUnavailableError('sell simulation', error);
    return { ok: false, reason: describeRevert(revertData(error)) };
  }
}

export function describeRevert(data: Hex | null): string {
  if (data === null || data === '0x') return 'reverted without a reason';
  try {
    const decoded = decodeErrorResult({ abi: revertAbi, data });
    const name: string = decoded.errorName;
    const args = (decoded.args ?? []) as readonly unknown[];
    if (name === 'WrappedError') return describeRevert(args[2] as Hex);
    if (name === 'Error') return `Error(${String(args[0])})`;
    return name;
  } catch {
    return `error ${data.slice(0, 10)}`;
  }
}

function taxBps(amount: bigint, arrived: bigint): number {
  if (arrived >= amount) return 0;
  return Number(((amount - arrived) * 10_000n) / amount);
}

function readUint(data: Hex): bigint {
  return data.length >= 66 ? BigInt(data.slice(0, 66)) : 0n;
}

/** An ERC-20 that returns data must return true; one that returns nothing (USDT style) passes. */
function returnedFalse(data: Hex): boolean {
  return data.length >= 66 && BigInt(data.slice(0, 66)) === 0n;
}

function throwawayAddress(): Address {
  return getAddress(`0x${randomBytes(20).toString('hex')}`);
}

function notSimulated(detail: string, notAToken = false): SellSimulation {
  return { ok: false, simulated: false, not_a_token: notAToken, method: null, probe: null, amount_in: null, paid: null, received: null, tax_bps: null, revert_reason: null, detail };
}
