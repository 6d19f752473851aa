// A trade's price impact on the registry venue's v4 pool, quoted from the pool state in the facts (ARCHITECTURE.md "Price impact").
import { unitsAtLeast } from './amount-grid.js';
import { priceImpactBps, simulateSwap, type PoolState, type SwapOutcome } from './quote/v4-swap.js';
import type { RiskInput, VenuePoolFact, VenueUnread } from './types.js';
import { RecentMap } from '../memo/recent-map.js';

/**
 * `quoted`: what the trade's exact amount does to the pool, `bps` the impact of what fills (two decimals,
 * 0 for an amount too small to move the price). `unknown`: no pool was read.
 */
export type TradeImpact =
  | { kind: 'quoted'; bps: number; fill: SwapOutcome['fill']; block: string }
  | { kind: 'unknown'; why: VenueUnread['why'] };

/** The impact of `input`'s trade; null when its facts hold no venue reading (recorded before the rule). */
export function tradeImpact(input: RiskInput): TradeImpact | null {
  const venue = input.venue;
  if (venue === undefined) return null;
  if (venue.kind === 'unread') return { kind: 'unknown', why: venue.why };
  const decimals = input.registryBySymbol?.decimals;
  const units = decimals === undefined ? null : unitsAtLeast(input.trade.amount, decimals);
  if (units === null) return { kind: 'unknown', why: 'no_venue' };
  return quoteImpact(venue, input.trade.side, units);
}

/**
 * A buy takes exactly `units` of the asset out of the pool (exact output), a sell puts exactly `units`
 * in (exact input), as a router swaps them; the pool's other side is the venue's quote token.
 */
export function quoteImpact(venue: VenuePoolFact, side: 'buy' | 'sell', units: bigint): TradeImpact {
  const quotes = quotesOf(venue)[side];
  const known = quotes.get(units);
  if (known !== undefined) return known;
  const quote = Object.freeze(swapQuote(venue, side, units));
  quotes.set(units, quote);
  return quote;
}

function swapQuote(venue: VenuePoolFact, side: 'buy' | 'sell', units: bigint): TradeImpact {
  const state = poolState(venue);
  const buying = side === 'buy';
  const zeroForOne = buying ? !venue.token_is_currency0 : venue.token_is_currency0;
  const outcome = simulateSwap(state, { zeroForOne, exactIn: !buying, amount: units });
  return { kind: 'quoted', bps: impactBeyondRounding(state.sqrtPriceX96, zeroForOne, outcome), fill: outcome.fill, block: venue.block.number };
}

/**
 * The impact with the pool's rounding given back: each step rounds the amount in and the fee up and the amount
 * out down by at most a base unit, which is no price impact. Without this a trade of a few base units would
 * read as thousands of bps and a larger one as less, and the bisection for max_allowed_amount needs the
 * impact to grow with the amount. A trade too small to exceed the rounding has none (0).
 */
function impactBeyondRounding(sqrtPriceX96: bigint, zeroForOne: boolean, outcome: SwapOutcome): number {
  const slack = BigInt(outcome.steps);
  const traded = outcome.amountIn - outcome.feeAmount - 2n * slack;
  if (traded <= 0n) return 0;
  const lenient = { ...outcome, amountIn: traded, feeAmount: 0n, amountOut: outcome.amountOut + slack };
  return priceImpactBps(sqrtPriceX96, zeroForOne, lenient) ?? 0;
}

/**
 * The pool's state in bigints, once per fact: a block's fact is one frozen object shared by every verdict
 * of the block, and a counterfactual's bisection quotes it again at each amount it tries.
 */
const STATES = new WeakMap<VenuePoolFact, PoolState>();

function poolState(venue: VenuePoolFact): PoolState {
  let state = STATES.get(venue);
  if (state === undefined) {
    state = {
      sqrtPriceX96: BigInt(venue.sqrt_price_x96),
      tick: venue.tick,
      liquidity: BigInt(venue.liquidity),
      lpFee: venue.lp_fee,
      protocolFee: venue.protocol_fee,
      tickSpacing: venue.tick_spacing,
      ticks: venue.ticks.map(([tick, net]) => ({ tick, liquidityNet: BigInt(net) })),
      words: { lowest: venue.words[0], highest: venue.words[1] },
    };
    STATES.set(venue, state);
  }
  return state;
}

/**
 * The quotes already made on a fact, by side and amount: a fleet repeats the same trade every
 * verdict of a block, so the swap is walked once per block, pool and size. Bounded (cleared when
 * full), since a bisection tries some 60 amounts on one fact. A quote is never changed by its readers.
 */
const QUOTES_PER_SIDE = 64;
const QUOTES = new WeakMap<VenuePoolFact, { buy: RecentMap<bigint, TradeImpact>; sell: RecentMap<bigint, TradeImpact> }>();

function quotesOf(venue: VenuePoolFact): { buy: RecentMap<bigint, TradeImpact>; sell: RecentMap<bigint, TradeImpact> } {
  let quotes = QUOTES.get(venue);
  if (quotes === undefined) {
    quotes = { buy: new RecentMap(QUOTES_PER_SIDE), sell: new RecentMap(QUOTES_PER_SIDE) };
    QUOTES.set(venue, quotes);
  }
  return quotes;
}
