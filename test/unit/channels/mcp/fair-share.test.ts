// A full MCP table gives a newcomer the idlest session of the address holding the most, and never lets one address keep another below its share.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { sessionToEvict, type HeldSession } from '../../../../src/channels/mcp/fair-share.js';

const none = new Map<string, number>();

function held(ip: string, lastSeen: number, id = `${ip}#${lastSeen}`): HeldSession {
  return { id, ip, lastSeen };
}

describe('sessionToEvict', () => {
  it('closes the idlest session of the address holding the most, however fresh its sessions are', () => {
    const table = [held('a', 900), held('a', 950), held('a', 990), held('b', 10), held('b', 20), held('c', 5)];
    assert.equal(sessionToEvict(table, 'new', none)?.id, 'a#900');
  });

  it('between addresses holding as many, closes the idler session', () => {
    const table = [held('a', 50), held('a', 60), held('b', 40), held('b', 70)];
    assert.equal(sessionToEvict(table, 'new', none)?.id, 'b#40');
  });

  it('refuses an address that already holds as many as any other', () => {
    const table = [held('a', 1), held('a', 2), held('b', 3), held('b', 4)];
    assert.equal(sessionToEvict(table, 'a', none), undefined);
    assert.equal(sessionToEvict(table, 'c', none)?.id, 'a#1');
  });

  it('counts initializations under way as held', () => {
    const table = [held('a', 1), held('a', 2), held('b', 3)];
    assert.equal(sessionToEvict(table, 'new', new Map([['b', 2]]))?.id, 'b#3');
    assert.equal(sessionToEvict(table, 'b', new Map([['b', 1]])), undefined);
  });

  it('always admits an address holding fewer than the most, from an address holding more than it', () => {
    const tables = fc.array(fc.record({ ip: fc.constantFrom('a', 'b', 'c', 'd', 'e'), lastSeen: fc.nat(1_000) }), { minLength: 1, maxLength: 60 });
    fc.assert(fc.property(tables, fc.constantFrom('a', 'b', 'c', 'd', 'e', 'new'), (rows, newcomer) => {
      const table = rows.map((row, index) => held(row.ip, row.lastSeen, String(index)));
      const count = (ip: string) => table.filter((session) => session.ip === ip).length;
      const most = Math.max(...table.map((session) => count(session.ip)));
      const victim = sessionToEvict(table, newcomer, none);
      if (count(newcomer) >= most) return assert.equal(victim, undefined);
      assert.ok(victim);
      assert.equal(count(victim.ip), most);
      const idlest = Math.min(...table.filter((session) => count(session.ip) === most).map((session) => session.lastSeen));
      assert.equal(victim.lastSeen, idlest);
    }), { numRuns: 2_000 });
  });
});
