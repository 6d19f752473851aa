// The Lua compare-and-append that keeps one linear audit chain across service instances.

/** How long a starved instance's claim on the next append lasts if it never comes back. */
export const CLAIM_MS = 250;

/**
 * Redis Lua has no SHA-256, so instances seal records locally on the head they
 * last saw and this script appends them only if that head (and every touched
 * wallet's head) is still current: optimistic concurrency, one round trip.
 *
 * Fairness: an instance whose batch loses because the head moved takes a short
 * claim; while it is live only the claimant may append, so a busy instance whose
 * next batch is always ready first cannot starve another one forever.
 *
 * Lost state: the epoch marker (written once, when the chain was created) must be the
 * one the instance knows, so a Redis that came back empty, or holding another chain,
 * never receives a record sealed for the old one.
 *
 * KEYS: 1 head hash {seq, hash}, 2 records hash {seq -> line}, 3 wallet-heads hash
 *       {wallet -> hash}, 4 claim string, 5 epoch marker string, 5+i the i-th wallet's seq list.
 * ARGV: expected seq, expected hash, instance id, wallet count n, expected epoch marker
 *       ('' skips the check), then n pairs (wallet, expected wallet head), then per
 *       record: seq, wallet index (1..n), line.
 * Reply: {1} when appended; {-1, marker or ''} when the marker differs; {0, claim holder
 *        or '', seq, hash, head of wallet 1..n} when refused, so the caller re-seals
 *        without another read.
 * Seqs travel and compare as strings: Lua prints large numbers in exponent form.
 */
export const APPEND_LUA = `
local ZERO = string.rep('0', 64)
local cur = redis.call('HMGET', KEYS[1], 'seq', 'hash')
local seq = cur[1] or '0'
local hash = cur[2] or ZERO
local n = tonumber(ARGV[4])
if ARGV[5] ~= '' then
  local marker = redis.call('GET', KEYS[5])
  if marker ~= ARGV[5] then return {-1, marker or ''} end
end
local claim = redis.call('GET', KEYS[4])
local ok = (seq == ARGV[1] and hash == ARGV[2]) and (not claim or claim == ARGV[3])
local heads = {}
for i = 1, n do
  heads[i] = redis.call('HGET', KEYS[3], ARGV[4 + 2 * i]) or ZERO
  if heads[i] ~= ARGV[5 + 2 * i] then ok = false end
end
if not ok then
  if not claim then
    redis.call('SET', KEYS[4], ARGV[3], 'PX', ${CLAIM_MS})
    claim = ARGV[3]
  end
  local reply = {0, claim, seq, hash}
  for i = 1, n do reply[4 + i] = heads[i] end
  return reply
end
local last = {}
for j = 6 + 2 * n, #ARGV, 3 do
  local wi = tonumber(ARGV[j + 1])
  redis.call('HSET', KEYS[2], ARGV[j], ARGV[j + 2])
  redis.call('RPUSH', KEYS[5 + wi], ARGV[j])
  seq = ARGV[j]
  hash = string.sub(ARGV[j + 2], 1, 64)
  last[wi] = hash
end
for i = 1, n do
  if last[i] then redis.call('HSET', KEYS[3], ARGV[4 + 2 * i], last[i]) end
end
redis.call('HSET', KEYS[1], 'seq', seq, 'hash', hash)
if claim then redis.call('DEL', KEYS[4]) end
return {1}
`;

/** Drops this instance's claim when it gives up, so others need not wait it out. */
export const RELEASE_LUA = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/**
 * Keeps records' facts by hash (KEYS 1 epoch marker string, 2 facts hash; ARGV expected marker,
 * then hash/text pairs) unless the marker is not the expected one ('' skips the check): a store
 * that lost its state is written nothing, as the append script refuses it too.
 */
export const FACTS_LUA = `
if ARGV[1] ~= '' and redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
for i = 2, #ARGV, 2 do redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) end
return 1
`;
