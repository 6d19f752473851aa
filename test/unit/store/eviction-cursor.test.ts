// A bounded Map's oldest entry, evicted in the order keys().next() gives, through bumps, clears and empty spells.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { EvictionCursor } from '../../../src/store/eviction-cursor.js';

type Step = { op: 'set' | 'bump' | 'delete' | 'evict' | 'clear'; key: number };

describe('EvictionCursor', () => {
  it('evicts what map.keys().next() names, whatever sets, bumps, deletes and clears came between', () => {
    const step = fc.record({ op: fc.constantFrom('set', 'set', 'bump', 'delete', 'evict', 'evict', 'clear'), key: fc.integer({ min: 0, max: 40 }) }) as fc.Arbitrary<Step>;
    fc.assert(fc.property(fc.array(step, { maxLength: 300 }), (steps) => {
      const map = new Map<number, number>();
      const cursor = new EvictionCursor(map);
      const reference = new Map<number, number>();
      for (const { op, key } of steps) {
        for (const m of [map, reference]) {
          if (op === 'set') m.set(key, key);
          if (op === 'bump' && m.has(key)) {
            m.delete(key);
            m.set(key, key);
          }
          if (op === 'delete') m.delete(key);
          if (op === 'clear') m.clear();
        }
        if (op === 'evict') {
          const expected = reference.keys().next();
          if (!expected.done) reference.delete(expected.value);
          assert.equal(cursor.evictOldest(), expected.done ? undefined : expected.value);
        }
        assert.deepEqual([...map.keys()], [...reference.keys()]);
      }
    }), { numRuns: 500 });
  });

  it('keeps a cache of 100,000 keys at its cap while new keys arrive', () => {
    const map = new Map<string, number>();
    const cursor = new EvictionCursor(map);
    for (let i = 0; i < 150_000; i++) {
      map.set(`wallet-${i}`, i);
      if (map.size > 100_000) cursor.evictOldest();
    }
    assert.equal(map.size, 100_000);
    assert.equal(map.keys().next().value, 'wallet-50000');
  });
});
