// Facts formats 2 and 3 resolve to the same engine input: format 3 takes the trade and the time from the record
// (its request and ts), keeping only what the request does not give back (ARCHITECTURE.md "Recorded facts").
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { canonicalText, sealFacts } from '../../../src/evaluation/recorded-facts.js';
import { resolveFacts } from '../../../src/evaluation/resolve-facts.js';
import { recordedRequest, tradeBesidesRequest, tradeOfRequest } from '../../../src/evaluation/trade-of-request.js';
import { deepFreeze } from '../../../src/facts/prices/price-provider.js';
import { TIER_POLICIES } from '../../../src/risk/tiers.js';
import type { RiskInput } from '../../../src/risk/types.js';

const TSLA = deepFreeze({ contract_address: '0xa6f91334bed73452616829fac9fa646b4b2b76e0', decimals: 18, is_native: false, symbol: 'TSLA' });
const PRICE = deepFreeze({ deviationBps: null, source: 'fallback_default', stale: false, usd: 350.25, origin: { kind: 'default', price_usd: 350.25 } } as RiskInput['price']);
const SAFETY = deepFreeze({ flaggedDanger: false, riskFactors: [], severity: 'unchecked' as const, checkedAt: null });
const NOW = 1_795_830_769_615;
const WALLET = '0x0000000000000000000000000000000000000001';

/** A REST body as the channel validated it: every default written out, no deadline and no request_id. */
const REQUEST = { allow_unregistered: false, amount: 1, asset: 'TSLA', contract_address: TSLA.contract_address, max_slippage_bps: 100, permit: false, side: 'buy', wallet: WALLET };

function input(trade: Record<string, unknown>): RiskInput {
  return {
    trade: trade as unknown as RiskInput['trade'], policy: TIER_POLICIES[1], entitledTier: 1, registryBySymbol: TSLA, registryByAddress: TSLA,
    price: PRICE, safety: SAFETY, wallet: { dailyPnlUsd: 0, windowCount: 0, windowLimit: 10, windowSeconds: 60 }, blockedAssets: [], nowMs: NOW,
  };
}

const ENGINE_TRADE = { allow_unregistered: false, amount: 1, asset: 'TSLA', contract_address: TSLA.contract_address, deadline: null, max_slippage_bps: 100, request_id: null, side: 'buy', wallet: WALLET };
const TIER = { basis: 'channel', channel: 'free' } as const;

/**
 * Record 1's facts as format 2 wrote them (bench:audit-bytes, offline fleet, before format 3), naming the context
 * the shared documents of this build make: the engine document follows the engine's version.
 */
const format2 = (context: string) => '{"format":2,"input":{"blockedAssets":[],"entitledTier":1,"nowMs":1795830769615,"trade":{"allow_unregistered":false,"amount":1,'
  + '"asset":"TSLA","contract_address":"0xa6f91334bed73452616829fac9fa646b4b2b76e0","deadline":null,"max_slippage_bps":100,"request_id":null,"side":"buy",'
  + '"wallet":"0x0000000000000000000000000000000000000001"},"wallet":{"dailyPnlUsd":0,"windowCount":0,"windowLimit":10,"windowSeconds":60}},'
  + `"origins":{"safety_checked_at":null,"tier":{"basis":"channel","channel":"free"}},"uses":{"context":"${context}"}}`;

describe('facts format 3', () => {
  it('keeps neither the trade nor the time of a REST verdict, and resolves to the input format 2 resolves to', () => {
    const sealed = sealFacts(input(ENGINE_TRADE), TIER, REQUEST);
    const own = JSON.parse(sealed.text);
    assert.equal(own.format, 3);
    assert.deepEqual([own.input.trade, own.input.nowMs], [undefined, undefined]);
    const shared = new Map(sealed.shared.map((document) => [document.hash, document.text]));
    const three = resolveFacts(sealed.text, shared, { request: REQUEST, ts: NOW });
    const two = resolveFacts(format2(own.uses.context), shared, { request: {}, ts: 0 });
    assert.ok(three.ok && two.ok);
    assert.deepEqual(three.facts.input, two.facts.input);
    assert.deepEqual({ ...three.facts, format: 2 }, two.facts);
    assert.deepEqual(three.facts.input.trade, ENGINE_TRADE);
    assert.equal(three.facts.input.nowMs, NOW);
  });

  it('keeps only the members a request does not give back: a spec default left out is given back, a value recorded otherwise is kept', () => {
    const sparse = { amount: 1, asset: 'TSLA', contract_address: TSLA.contract_address, side: 'buy', wallet: WALLET, deadline: 1_795_830_800, request_id: 'r-1' };
    const trade = { ...ENGINE_TRADE, deadline: 1_795_830_800, request_id: 'r-1' };
    const sealed = sealFacts(input(trade), TIER, sparse);
    assert.equal(JSON.parse(sealed.text).input.trade, undefined);
    const shared = new Map(sealed.shared.map((document) => [document.hash, document.text]));
    const resolved = resolveFacts(sealed.text, shared, { request: sparse, ts: NOW });
    assert.ok(resolved.ok);
    assert.deepEqual(resolved.facts.input.trade, trade);

    // Facts written while a left-out default was kept in the facts still resolve to the same trade.
    const before = JSON.parse(sealed.text);
    before.input.trade = { allow_unregistered: false, max_slippage_bps: 100 };
    const keptBefore = resolveFacts(canonicalText(before), shared, { request: sparse, ts: NOW });
    assert.ok(keptBefore.ok);
    assert.deepEqual(keptBefore.facts.input.trade, trade);

    const unregistered = sealFacts(input({ ...trade, allow_unregistered: true, max_slippage_bps: 250 }), TIER, sparse);
    assert.deepEqual(JSON.parse(unregistered.text).input.trade, { allow_unregistered: true, max_slippage_bps: 250 });

    const otherwise = sealFacts(input(ENGINE_TRADE), TIER, { ...REQUEST, amount: 2 });
    assert.deepEqual(JSON.parse(otherwise.text).input.trade, { amount: 1 });
    const back = resolveFacts(otherwise.text, shared, { request: { ...REQUEST, amount: 2 }, ts: NOW });
    assert.ok(back.ok);
    assert.deepEqual(back.facts.input.trade, ENGINE_TRADE);
  });

  it('records a request without the members equal to the spec\'s defaults, and gives them back', () => {
    const recorded = recordedRequest(REQUEST);
    assert.deepEqual(recorded, { amount: 1, asset: 'TSLA', contract_address: TSLA.contract_address, side: 'buy', wallet: WALLET });
    assert.deepEqual(tradeOfRequest(recorded, undefined), ENGINE_TRADE);
    const chosen = { ...REQUEST, allow_unregistered: true, max_slippage_bps: 0, permit: true, deadline: 1_795_830_800 };
    assert.deepEqual(recordedRequest(chosen), chosen);
    assert.deepEqual(recordedRequest({ ...REQUEST, max_slippage_bps: 100.0 }), recorded);
  });

  it('is held to the hash the record names like every format: its text is canonical', () => {
    const sealed = sealFacts(input(ENGINE_TRADE), TIER, REQUEST);
    assert.equal(canonicalText(JSON.parse(sealed.text)), sealed.text);
  });

  it("writes the verdict's own facts as the canonical text of the object they make, whichever members are set, and names them by its hash", () => {
    const figure = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(-0));
    const own = fc.record({
      // Short lists, and long ones whose text often passes the length whose hashes are remembered (MAX_HASHED_CHARS).
      blockedAssets: fc.oneof(fc.array(fc.string(), { maxLength: 3 }), fc.array(fc.string({ minLength: 20, maxLength: 40 }), { maxLength: 40, size: 'max' })),
      entitledTier: fc.constantFrom(1, 2, 3),
      limits: fc.oneof(fc.constant(undefined), fc.constant(null), fc.record({ dailyNotionalUsd: fc.oneof(fc.constant(null), figure), maxTradeUsd: fc.oneof(fc.constant(null), figure) })),
      permitRequested: fc.oneof(fc.constant(undefined), fc.boolean()),
      trade: fc.record({ amount: fc.constantFrom(1, 2), allow_unregistered: fc.boolean(), max_slippage_bps: fc.constantFrom(100, 250) }),
      wallet: fc.record(
        { dailyPnlUsd: figure, windowCount: fc.nat(), windowLimit: fc.nat(), windowSeconds: fc.nat(), windowHitsMs: fc.array(fc.nat(), { maxLength: 3 }), dailyNotionalUsedUsd: figure },
        { requiredKeys: ['dailyPnlUsd', 'windowCount', 'windowLimit', 'windowSeconds'] },
      ),
    });
    fc.assert(fc.property(own, (facts) => {
      const trade = { ...ENGINE_TRADE, ...facts.trade };
      const riskInput = { ...input(trade), ...facts, trade } as unknown as RiskInput;
      const sealed = sealFacts(riskInput, TIER, REQUEST);
      // The object the facts were once written from, members in any order, undefined ones left out by canonicalText.
      const object = {
        wallet: facts.wallet, trade: tradeBesidesRequest(trade, REQUEST), permitRequested: facts.permitRequested, entitledTier: facts.entitledTier,
        blockedAssets: facts.blockedAssets, ...(facts.limits ? { limits: facts.limits } : {}),
      };
      const document = JSON.parse(sealed.text) as { input: unknown };
      return sealed.text.includes(`"input":${canonicalText(object)},"origins"`) && canonicalText(document) === sealed.text
        && sealed.hash === createHash('sha256').update(sealed.text).digest('hex');
    }), { numRuns: 2000 });
  });

  it('names a format it does not read', () => {
    const resolved = resolveFacts('{"format":4,"input":{}}', new Map(), { request: REQUEST, ts: NOW });
    assert.deepEqual(resolved, { ok: false, detail: 'facts format 4 is not one this replay reads (1, 2, 3)' });
  });
});
