// The chains' hash tags: Redis Cluster's own slot function, and K chains spread one to each of K even slot ranges.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CLUSTER_SLOTS, chainTag, crc16, keySlot } from '../../../../src/audit/redis/partitioned-slots.js';

describe('the slots of partitioned audit chains', () => {
  it('hash keys as Redis Cluster does: CRC16/XMODEM of the hash tag, mod 16384', () => {
    // The cluster specification's check value: CRC16 of "123456789" is 0x31C3.
    assert.equal(crc16(Buffer.from('123456789')), 0x31c3);
    // Slots CLUSTER KEYSLOT answers for these keys (redis-server 7).
    assert.deepEqual(['{tg:audit:0}:head', '{tg:audit:1}:head', '{tg:audit}:head', 'foo', '{}x', '{user1000}.following'].map(keySlot), [966, 5095, 14598, 12182, 10595, 3443]);
  });

  it('give each of K chains a slot in the middle half of its own K-th of the slots, for every K', () => {
    for (let k = 2; k <= 16; k++) {
      const slots = Array.from({ length: k }, (_, p) => keySlot(`{${chainTag(p, k)}}:head`));
      // With K primaries splitting the slots evenly, chain p is served by primary p, whatever the boundaries' rounding.
      const ranges = slots.map((slot) => Math.floor((slot * k) / CLUSTER_SLOTS));
      assert.deepEqual(ranges, Array.from({ length: k }, (_, p) => p), `K=${k}: slots ${slots.join(', ')}`);
      slots.forEach((slot, p) => assert.ok(Math.abs(slot - (p + 0.5) * (CLUSTER_SLOTS / k)) <= CLUSTER_SLOTS / (4 * k), `K=${k} chain ${p}`));
    }
  });
});
