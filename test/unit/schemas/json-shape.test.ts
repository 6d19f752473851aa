// What no schema should see, found in flat bodies (the one-pass check) and nested ones (the walk) alike.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkShape, MAX_JSON_DEPTH, shapeProblem, SOUND, SOUND_WITH_PAIRS } from '../../../src/schemas/json-shape.js';

const sound = { wallet: '0x1111111111111111111111111111111111111111', asset: 'TSLA', side: 'buy', amount: 1.5, permit: false, deadline: null };

/** `value` nested `levels` objects deep under `outer`. */
function nested(value: unknown, levels: number): unknown {
  let node = value;
  for (let i = 0; i < levels; i++) node = { outer: node };
  return node;
}

describe('shapeProblem', () => {
  it('passes sound bodies, flat and nested, and scalars', () => {
    for (const value of [sound, {}, { list: [1, 'a', null] }, nested(sound, 3), 'text', 1, null, [sound]]) assert.equal(shapeProblem(value, 'body'), null);
  });

  it('names a non-finite number, a lone surrogate in a value or a key, at its place in a flat body and a nested one', () => {
    const cases: [unknown, (string | number)[], string][] = [
      [{ ...sound, amount: Infinity }, ['body', 'amount'], 'finite_number'],
      [{ ...sound, asset: 'TS\ud800' }, ['body', 'asset'], 'string_unicode'],
      [{ ...sound, ['k\udc00']: 1 }, ['body'], 'string_unicode'],
      [{ ...sound, extra: { amount: -Infinity } }, ['body', 'extra', 'amount'], 'finite_number'],
      [{ ...sound, extra: ['ok', 'x\ud800'] }, ['body', 'extra', 1], 'string_unicode'],
    ];
    for (const [value, loc, type] of cases) {
      const issue = shapeProblem(value, 'body');
      assert.deepEqual([issue?.loc, issue?.type], [loc, type], JSON.stringify(loc));
    }
  });

  it('refuses nesting past the limit at the top-level field that holds it', () => {
    const issue = shapeProblem({ ...sound, deep: nested(1, MAX_JSON_DEPTH) }, 'body');
    assert.deepEqual([issue?.loc, issue?.type], [['body', 'deep'], 'json_invalid']);
    assert.equal(shapeProblem({ ...sound, deep: nested(1, MAX_JSON_DEPTH - 2) }, 'body'), null);
  });

  it('tells a sound input with a surrogate pair, in a value or a key, flat or nested, from one without', () => {
    const pair = '\u{1F680}';
    for (const value of [sound, {}, nested(sound, 3), 'text', [sound]]) assert.equal(checkShape(value, 'body'), SOUND);
    for (const value of [{ ...sound, asset: `A${pair}` }, { ...sound, [pair]: 1 }, nested({ asset: pair }, 2), [1, pair], pair]) {
      assert.equal(checkShape(value, 'body'), SOUND_WITH_PAIRS, JSON.stringify(value));
    }
    // A lone surrogate beside a pair is still the problem it was.
    assert.equal((checkShape({ asset: pair, side: 'x\ud800' }, 'body') as { type: string }).type, 'string_unicode');
  });
});
