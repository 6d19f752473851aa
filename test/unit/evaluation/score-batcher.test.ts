// The scorer answers exactly what the engine answers, whichever way a trade takes: an allow on the
// event loop, a warn or deny through the scoring threads for its counterfactuals.
import { deepStrictEqual, ok, rejects } from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ScoreBatcher } from '../../../src/evaluation/score-batcher.js';
import { scoredAllow, scoreTrade } from '../../../src/risk/counterfactuals.js';
import { riskInput } from '../../support/risk-arbitraries.js';
import { makeInput } from '../../support/risk-fixtures.js';

const inputs = [makeInput(), makeInput({ trade: { amount: 30 } }), ...fc.sample(riskInput, { numRuns: 300, seed: 3001 })];

describe('scoredAllow', () => {
  it('gives scoreTrade\'s verdict for an allow and null for anything else', () => {
    for (const input of inputs) {
      const whole = scoreTrade(input);
      deepStrictEqual(scoredAllow(input), whole.decision === 'allow' ? whole : null);
    }
  });
});

describe('ScoreBatcher', () => {
  it('scores allows, warns and denies, all at once, exactly as the engine does', async () => {
    const decisions = new Set(inputs.map((input) => scoreTrade(input).decision));
    ok(decisions.has('allow') && decisions.has('deny') && decisions.has('warn'), `the sample holds every decision: ${[...decisions]}`);
    const scorer = new ScoreBatcher(2);
    try {
      await scorer.started();
      const results = await Promise.all(inputs.map((input) => scorer.score(input)));
      deepStrictEqual(results, inputs.map((input) => scoreTrade(input)));
    } finally {
      await scorer.close();
    }
  });

  it('only a verdict with counterfactuals to find waits for a thread', async () => {
    const scorer = new ScoreBatcher(1);
    try {
      await scorer.started();
      const allow = scorer.score(makeInput());
      deepStrictEqual(scorer.queued, 0);
      ok(!(allow instanceof Promise), 'an allow is answered at once, without a promise');
      // Over the Tier 1 ceiling: a deny whose max_allowed_amount is found by bisection.
      const deny = scorer.score(makeInput({ trade: { amount: 30 } }));
      deepStrictEqual(scorer.queued, 1);
      deepStrictEqual((await allow).decision, 'allow');
      ok((await deny).counterfactuals?.max_allowed_amount !== undefined);
    } finally {
      await scorer.close();
    }
  });

  it('rejects, never answers, when the engine throws on the event loop', async () => {
    const scorer = new ScoreBatcher(1);
    try {
      await scorer.started();
      // A fact missing from the input: the pass on the loop throws, and the evaluation becomes an error verdict.
      const broken = { ...makeInput(), price: undefined } as unknown as Parameters<ScoreBatcher['score']>[0];
      // A rejected promise, not a throw: the evaluation's step turns it into an error verdict.
      const scored = scorer.score(broken);
      ok(scored instanceof Promise);
      await rejects(scored, TypeError);
      deepStrictEqual(scorer.queued, 0);
    } finally {
      await scorer.close();
    }
  });
});
