// Reads the legs of a simulated bundle back into what a buyer lived through: acquired how, sold when, taxed how much.
import { decodeFunctionResult, type Address, type Hex } from 'viem';
import { readOwnTransfer, type OwnTransferResult } from './own-transfer.js';
import { readSizedSell, type SizedSellResult } from './sized-sell.js';
import { HOLD_HORIZONS, safetyProbeAbi, type Acquisition, type Bundle, type LegResult, type Route, type Seller, type SellPath } from './simulation-bundle.js';

/** One holder's sell: when (0 at once, else an index into HOLD_HORIZONS plus one), how, and what moved. */
export interface SellLeg {
  horizon: number;
  path: SellPath;
  ok: boolean;
  amountIn: bigint | null;
  paid: bigint | null;
  received: bigint | null;
  taxBps: number | null;
  failureData: Hex | null;
}

export interface SimulationOutcome {
  method: Acquisition | null;
  soldVia: 'venue_v4' | 'transfer' | null;
  probe: Address | null;
  acquired: boolean;
  buyOk: boolean | null;
  bought: bigint | null;
  buyTaxBps: number | null;
  /** Every sell of a holder that acquired the token, in time order. */
  sells: SellLeg[];
  /** The sell that lost the most on the way out (ARCHITECTURE.md "Token safety": the worst leg is judged). */
  worst: SellLeg | null;
  sellFreshOk: boolean | null;
  sellHeldOk: boolean | null;
  walletOk: boolean | null;
  /** A holder without code transferred the token itself after the longest hold; null when it was not funded. */
  ownTransfer: OwnTransferResult | null;
  /** The sell of a sizeable share of the pool's depth at once; null when it was not funded. */
  sizedSell: SizedSellResult | null;
  failed: boolean;
  failureData: Hex | null;
  detail: string;
}
interface Acquired {
  acquired: boolean;
  buyOk: boolean | null;
  bought: bigint;
  buyTaxBps: number | null;
  failure: LegResult | null;
}

const ACQUIRED_BY: Readonly<Record<Acquisition, string>> = {
  venue_v4: 'bought through the venue pool',
  holder_transfer: 'received from a real holder',
  state_override: 'given by state override',
};

/**
 * The primary route when its holder acquired the token; else the override route, with the
 * primary's refusal kept (buy_ok false); else nothing was acquired and the refusal is all there is.
 */
export function readOutcome(bundle: Bundle, legs: ReadonlyMap<string, LegResult>, poolLive: boolean): SimulationOutcome {
  const [primary, backup] = bundle.routes;
  const first = acquisition(primary, legs, 'fresh');
  const second = backup ? acquisition(backup, legs, 'fresh') : null;
  const route = first.acquired ? primary : second?.acquired ? backup : null;
  if (route === null) {
    const reason = first.failure && !first.failure.ok ? first.failure.data : null;
    return {
      ...nothing(primary.method), ownTransfer: readOwnTransfer(legs), sizedSell: readSizedSell(bundle.sized, legs), buyOk: first.buyOk, failed: first.buyOk === false, failureData: reason,
      detail: `the throwaway holder could not acquire the token (${primary.method === 'venue_v4' ? 'the buy through the venue pool reverted' : 'no transfer to it went through'}) and no other route gave it the token`,
    };
  }
  const got = route === primary ? first : second!;
  const buyOk = route === primary ? got.buyOk : first.buyOk;
  return disposal(bundle, route, got, buyOk, legs, poolLive, route === primary ? '' : ` after the ${primary.method === 'venue_v4' ? 'buy through the venue pool' : 'real holders\' transfers'} reverted`);
}

function acquisition(route: Route, legs: ReadonlyMap<string, LegResult>, holder: string): Acquired {
  const balance = uint(legs.get(`${holder}.${route.method}.balance`));
  if (route.method === 'venue_v4') {
    const buy = legs.get(`${holder}.venue_v4.buy`)!;
    if (!buy.ok) return { acquired: false, buyOk: false, bought: 0n, buyTaxBps: null, failure: buy };
    const [amountOut, received] = decodeFunctionResult({ abi: safetyProbeAbi, functionName: 'buy', data: buy.data });
    return { acquired: received > 0n, buyOk: true, bought: received, buyTaxBps: taxBps(amountOut, received), failure: null };
  }
  if (route.method === 'holder_transfer') {
    const gets = route.sent.map((amount, i) => [amount, legs.get(`${holder}.holder_transfer.get.${i}`)!] as const);
    const sent = gets.reduce((sum, [amount, leg]) => (leg.ok ? sum + amount : sum), 0n);
    const failure = gets.find(([, leg]) => !leg.ok)?.[1] ?? null;
    return { acquired: balance > 0n, buyOk: sent > 0n, bought: balance, buyTaxBps: sent > 0n ? taxBps(sent, balance) : null, failure: sent > 0n ? null : failure };
  }
  return { acquired: balance > 0n, buyOk: null, bought: balance, buyTaxBps: null, failure: null };
}

function disposal(bundle: Bundle, route: Route, got: Acquired, buyOk: boolean | null, legs: ReadonlyMap<string, LegResult>, poolLive: boolean, after: string): SimulationOutcome {
  const sells = route.sellers
    .filter((seller) => acquisition(route, legs, seller.name).acquired)
    .map((seller) => sellLeg(seller, legs.get(`${seller.name}.${route.method}.dispose`)!, poolLive))
    .sort((a, b) => a.horizon - b.horizon);
  const wallet = route.wallet ? legs.get(`wallet.${route.method}.dispose`) ?? null : null;
  const measured = sells.filter((leg) => leg.ok && leg.taxBps !== null);
  const worst = measured.reduce<SellLeg | null>((w, leg) => (w === null || leg.taxBps! > w.taxBps! ? leg : w), null);
  const failed = sells.find((leg) => !leg.ok) ?? null;
  const walletFailure = wallet && !wallet.ok ? wallet : null;
  const own = readOwnTransfer(legs);
  const ownFailure = own && !own.ok ? own : null;
  const sized = readSizedSell(bundle.sized, legs);
  const sizedFailure = sized && !sized.ok ? sized : null;
  const held = sells.filter((leg) => leg.horizon > 0);
  const words = [`${ACQUIRED_BY[route.method]}${after}`, ...timeWords(sells, poolLive)];
  if (wallet && poolLive) words.push(`transferred to a wallet: ${wallet.ok ? 'went through' : 'reverted'}`);
  if (sized) words.push(`sold ${sized.amount} base units (a share of the pool's depth) at once: ${sized.ok ? 'went through' : 'reverted'}`);
  if (own) words.push(`a wallet without code transferred it itself after holding ${holdWords(HOLD_HORIZONS.length)}: ${own.ok ? 'went through' : 'failed'}`);
  return {
    method: route.method,
    soldVia: poolLive ? 'venue_v4' : 'transfer',
    probe: route.fresh,
    acquired: true,
    buyOk,
    bought: got.bought,
    buyTaxBps: got.buyTaxBps,
    sells,
    worst,
    sellFreshOk: sells.filter((leg) => leg.horizon === 0).every((leg) => leg.ok),
    sellHeldOk: held.length > 0 ? held.every((leg) => leg.ok) : null,
    walletOk: wallet ? wallet.ok : null,
    ownTransfer: own,
    sizedSell: sized,
    failed: failed !== null || sizedFailure !== null || ownFailure !== null || walletFailure !== null,
    failureData: failed ? failed.failureData : sizedFailure ? sizedFailure.failureData : ownFailure ? ownFailure.failureData : walletFailure ? walletFailure.data : null,
    detail: words.join('; '),
  };
}

function sellLeg(seller: Seller, leg: LegResult, poolLive: boolean): SellLeg {
  const base = { horizon: seller.horizon, path: seller.path };
  if (!leg.ok) return { ...base, ok: false, amountIn: null, paid: null, received: null, taxBps: null, failureData: leg.data };
  const [amountIn, paid, received] = moved(leg.data, poolLive);
  return { ...base, ok: true, amountIn, paid, received, taxBps: taxBps(amountIn, paid), failureData: null };
}

/** `sold into the venue pool at once: went through`, or by path when the paths differ. */
function timeWords(sells: readonly SellLeg[], poolLive: boolean): string[] {
  const verb = poolLive ? 'sold into the venue pool' : 'transferred to a wallet';
  return [0, ...HOLD_HORIZONS.map((_, i) => i + 1)].map((horizon) => {
    const when = horizon === 0 ? 'at once' : `after holding ${holdWords(horizon)}`;
    const at = sells.filter((leg) => leg.horizon === horizon);
    if (at.length === 0) return `${verb} ${when}: the holder could not acquire the token`;
    if (at.every((leg) => leg.ok === at[0].ok)) return `${verb} ${when}: ${at[0].ok ? 'went through' : 'reverted'}`;
    return `${verb} ${when}: ${at.map((leg) => `${leg.ok ? 'went through' : 'reverted'} ${PATH_WORDS[leg.path]}`).join(', ')}`;
  });
}

export const PATH_WORDS: Readonly<Record<SellPath, string>> = {
  transfer: 'by transfer',
  transfer_from: 'by approve and transferFrom (as routers sell)',
};

/** `1 block`, `6 hours`, `7 days`: the horizon's length. */
export function holdWords(horizon: number): string {
  return durationWords(Number(HOLD_HORIZONS[horizon - 1].seconds));
}

/** `12 seconds`, `6 hours`, `1 day`: a hold in the largest whole unit. */
export function durationWords(seconds: number): string {
  const [n, unit] = seconds % 86_400 === 0 ? [seconds / 86_400, 'day'] : seconds % 3_600 === 0 ? [seconds / 3_600, 'hour'] : [seconds, 'second'];
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}

/** What a disposal moved: offered, received by the other side, and received back (quote or token). */
function moved(data: Hex, poolLive: boolean): [bigint, bigint, bigint] {
  // sellAllVia and sendAllVia return what sellAll and sendAll do.
  if (poolLive) return [...decodeFunctionResult({ abi: safetyProbeAbi, functionName: 'sellAll', data })];
  const [sent, arrived] = decodeFunctionResult({ abi: safetyProbeAbi, functionName: 'sendAll', data });
  return [sent, arrived, arrived];
}

function nothing(method: Acquisition): Omit<SimulationOutcome, 'buyOk' | 'ownTransfer' | 'sizedSell' | 'failed' | 'failureData' | 'detail'> {
  return {
    method, soldVia: null, probe: null, acquired: false, bought: null, buyTaxBps: null, sells: [], worst: null,
    sellFreshOk: null, sellHeldOk: null, walletOk: null,
  };
}

export function taxBps(amount: bigint, arrived: bigint): number {
  if (amount === 0n || arrived >= amount) return 0;
  // Rounded to the nearest basis point: a 10% fee taken as floor(amount / 10) is 1000, not 999.
  return Number(((amount - arrived) * 10_000n + amount / 2n) / amount);
}

function uint(leg: LegResult | undefined): bigint {
  return leg?.ok && leg.data.length >= 66 ? BigInt(leg.data.slice(0, 66)) : 0n;
}
