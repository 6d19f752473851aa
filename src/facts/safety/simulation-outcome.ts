// Reads the legs of a simulated bundle back into what a buyer lived through: acquired how, sold when, taxed how much.
import { decodeFunctionResult, type Address, type Hex } from 'viem';
import { safetyProbeAbi, type Acquisition, type Bundle, type LegResult, type Route } from './simulation-bundle.js';

export interface SimulationOutcome {
  method: Acquisition | null;
  soldVia: 'venue_v4' | 'transfer' | null;
  probe: Address | null;
  acquired: boolean;
  buyOk: boolean | null;
  bought: bigint | null;
  amountIn: bigint | null;
  paid: bigint | null;
  received: bigint | null;
  buyTaxBps: number | null;
  sellTaxBps: number | null;
  sellFreshOk: boolean | null;
  sellHeldOk: boolean | null;
  walletOk: boolean | null;
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
      ...nothing(primary.method), buyOk: first.buyOk, failed: first.buyOk === false, failureData: reason,
      detail: `the throwaway holder could not acquire the token (${primary.method === 'venue_v4' ? 'the buy through the venue pool reverted' : 'no transfer to it went through'}) and no other route gave it the token`,
    };
  }
  const got = route === primary ? first : second!;
  const buyOk = route === primary ? got.buyOk : first.buyOk;
  return disposal(route, got, buyOk, legs, poolLive, route === primary ? '' : ` after the ${primary.method === 'venue_v4' ? 'buy through the venue pool' : 'real holders\' transfers'} reverted`);
}

function acquisition(route: Route, legs: ReadonlyMap<string, LegResult>, holder: 'fresh' | 'held'): Acquired {
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

function disposal(route: Route, got: Acquired, buyOk: boolean | null, legs: ReadonlyMap<string, LegResult>, poolLive: boolean, after: string): SimulationOutcome {
  const fresh = legs.get(`fresh.${route.method}.dispose`)!;
  const heldAcquired = acquisition(route, legs, 'held').acquired;
  const held = heldAcquired ? legs.get(`held.${route.method}.dispose`)! : null;
  const wallet = route.wallet ? legs.get(`wallet.${route.method}.dispose`) ?? null : null;
  const measured = fresh.ok ? fresh : held?.ok ? held : null;
  const [amountIn, paid, received] = measured ? moved(measured.data, poolLive) : [null, null, null];
  const failure = [fresh, held, wallet].find((leg) => leg !== null && !leg.ok) ?? null;
  const soldVia = poolLive ? 'venue_v4' as const : 'transfer' as const;
  const verb = poolLive ? 'sold into the venue pool' : 'transferred to a wallet';
  const words = [
    `${ACQUIRED_BY[route.method]}${after}`,
    `${verb} at once: ${fresh.ok ? 'went through' : 'reverted'}`,
    held ? `${verb} after holding a day: ${held.ok ? 'went through' : 'reverted'}` : 'the day-old holder could not acquire the token',
    ...(wallet && poolLive ? [`transferred to a wallet: ${wallet.ok ? 'went through' : 'reverted'}`] : []),
  ];
  return {
    method: route.method,
    soldVia,
    probe: route.fresh,
    acquired: true,
    buyOk,
    bought: got.bought,
    amountIn,
    paid,
    received,
    buyTaxBps: got.buyTaxBps,
    sellTaxBps: amountIn !== null && paid !== null ? taxBps(amountIn, paid) : null,
    sellFreshOk: fresh.ok,
    sellHeldOk: held ? held.ok : null,
    walletOk: wallet ? wallet.ok : null,
    failed: failure !== null,
    failureData: failure && !failure.ok ? failure.data : null,
    detail: words.join('; '),
  };
}

/** What a disposal moved: offered, received by the other side, and received back (quote or token). */
function moved(data: Hex, poolLive: boolean): [bigint, bigint, bigint] {
  if (poolLive) return [...decodeFunctionResult({ abi: safetyProbeAbi, functionName: 'sellAll', data })];
  const [sent, arrived] = decodeFunctionResult({ abi: safetyProbeAbi, functionName: 'sendAll', data });
  return [sent, arrived, arrived];
}

function nothing(method: Acquisition): Omit<SimulationOutcome, 'buyOk' | 'failed' | 'failureData' | 'detail'> {
  return {
    method, soldVia: null, probe: null, acquired: false, bought: null, amountIn: null, paid: null, received: null,
    buyTaxBps: null, sellTaxBps: null, sellFreshOk: null, sellHeldOk: null, walletOk: null,
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
