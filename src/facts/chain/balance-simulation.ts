// Read-only balance simulation: the real balance, then the post-trade balance proven through a storage override.
import { erc20Abi, formatUnits, getAddress, parseUnits, type Address, type PublicClient } from 'viem';
import { balanceStorageKey, balanceWithOverride, findBalanceSlot, type SlotLayout } from './balance-slot.js';
import { ChainUnavailableError, orOnRevert } from './errors.js';

export interface BalanceRequest {
  token: string;
  holder: string;
  /** Signed amount in token units; negative spends. */
  delta: number;
  decimals: number;
  /** The caller's balance-mapping slot (0-64), or null to probe. */
  balanceSlot: number | null;
}

export interface BalanceOutcome {
  token: Address;
  holder: Address;
  balanceSlot: number;
  layout: SlotLayout;
  decimals: number;
  /** Base units. */
  current: bigint;
  delta: bigint;
  post: bigint;
}

export type BalanceProblem = 'no_code' | 'not_erc20' | 'slot_not_found' | 'below_zero';

export type BalanceSimulation = { ok: true; outcome: BalanceOutcome } | { ok: false; problem: BalanceProblem; message: string };

/**
 * Never sends a transaction: every step is an eth_call. The post-trade balance is written
 * into the proven storage key of an eth_call and balanceOf must report it back. Rejects
 * with ChainUnavailableError when the node does not answer.
 */
export class BalanceSimulator {
  constructor(private readonly client: PublicClient) {}

  async simulate(request: BalanceRequest): Promise<BalanceSimulation> {
    const [token, holder] = [getAddress(request.token), getAddress(request.holder)];
    const [code, current] = await Promise.all([
      this.client.getCode({ address: token }).catch((error: unknown) => {
        throw new ChainUnavailableError(`code read of ${token}`, error);
      }),
      orOnRevert(this.client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [holder] }), null, `balance read of ${token}`),
    ]);
    if (code === undefined || code === '0x') return problem('no_code', `no contract code at ${token}`);
    if (current === null) return problem('not_erc20', `${token} does not answer balanceOf(address); it is not an ERC-20 token`);
    const slot = await findBalanceSlot(this.client, token, holder, request.balanceSlot);
    if (slot === null) return problem('slot_not_found', slotMissing(request.balanceSlot));
    const delta = parseUnits(plainDecimal(request.delta), request.decimals);
    const post = current + delta;
    if (post < 0n) {
      return problem('below_zero', `delta ${request.delta} would take the balance of ${formatUnits(current, request.decimals)} below zero`);
    }
    const reported = await balanceWithOverride(this.client, token, holder, [{ key: balanceStorageKey(holder, slot), value: post }]);
    if (reported !== post) return problem('slot_not_found', `${token} does not report a balance written to its balance slot`);
    return { ok: true, outcome: { token, holder, balanceSlot: slot.slot, layout: slot.layout, decimals: request.decimals, current, delta, post } };
  }
}


function problem(kind: BalanceProblem, message: string): BalanceSimulation {
  return { ok: false, problem: kind, message };
}

function slotMissing(hint: number | null): string {
  return hint === null
    ? 'no storage slot from 0 to 64 (Solidity or Vyper mapping layout) nor the OpenZeppelin ERC-7201 ERC20 namespace holds the balance; pass balance_slot'
    : `balance_slot ${hint} does not hold the balance of this token (tried the Solidity and Vyper mapping layouts and the OpenZeppelin ERC-7201 namespace)`;
}

/** A JSON number as plain decimal text (no exponent), which parseUnits needs. */
export function plainDecimal(value: number): string {
  const text = String(value);
  const match = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!match) return text;
  const [, sign, whole, fraction = '', exponent] = match;
  const digits = whole + fraction;
  const point = whole.length + Number(exponent);
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}
