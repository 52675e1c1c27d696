/**
 * The fleet's Lua scripts, defined on the client as commands (ioredis `defineCommand`: sent by SHA,
 * loaded again by ioredis after a Redis restart). Each runs atomically in Redis, so "check the count,
 * then take a permit" cannot interleave with another process's, and each answers in one round trip.
 * Time is Redis's own (`TIME`), so processes with skewed clocks agree on leases and buckets.
 */

const NOW = `local t = redis.call('TIME'); local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/**
 * Gives back `release` permits of this member and asks for up to `want` more.
 * KEYS: permits hash (member -> count), members zset (member -> alive until), rate hash, pause key,
 *       open key, votes zset, probe key.
 * ARGV: member, release, want, max (-1: none), rate per s (0: none), burst, lease ms, quorum.
 * Returns { granted, waitMs, why }: granted -1 means the circuit is open fleet-wide (waitMs: until a
 * probe); why: 1 paused (Retry-After), 2 rate, 3 all permits taken, 4 this member probes for the fleet.
 */
const PERMIT = `${NOW}
local member = ARGV[1]
local release, want, max = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local rate, burst, lease, quorum = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
redis.call('ZADD', KEYS[2], now + lease, member)
if release > 0 then
  if redis.call('HINCRBY', KEYS[1], member, -release) <= 0 then redis.call('HDEL', KEYS[1], member) end
end
if want <= 0 then return {0, 0, 0} end
local paused = redis.call('PTTL', KEYS[4])
if paused > 0 then return {0, paused, 1} end
local open = redis.call('PTTL', KEYS[5])
if open > 0 then return {-1, open, 0} end
local grant, why = want, 0
redis.call('ZREMRANGEBYSCORE', KEYS[6], '-inf', now - lease * 20)
if redis.call('ZCARD', KEYS[6]) >= quorum then
  -- The circuit was opened and its cool-down is over: one member probes for the fleet.
  if redis.call('SET', KEYS[7], member, 'NX', 'PX', lease) then grant, why = 1, 4
  elseif redis.call('GET', KEYS[7]) ~= member then return {-1, redis.call('PTTL', KEYS[7]), 0}
  else return {0, 50, 3} end
end
if max >= 0 then
  local used = 0
  local holders = redis.call('HGETALL', KEYS[1])
  for i = 1, #holders, 2 do
    local alive = redis.call('ZSCORE', KEYS[2], holders[i])
    -- A member whose heartbeat stopped (killed) gets its permits taken back.
    if (not alive) or tonumber(alive) < now then redis.call('HDEL', KEYS[1], holders[i])
    else used = used + tonumber(holders[i + 1]) end
  end
  if max - used < grant then grant, why = math.max(0, max - used), 3 end
end
local wait = 0
if grant > 0 and rate > 0 then
  local bucket = redis.call('HMGET', KEYS[3], 'tokens', 'at')
  local tokens = tonumber(bucket[1]) or burst
  local at = tonumber(bucket[2]) or now
  tokens = math.min(burst, tokens + math.max(0, now - at) * rate / 1000)
  local take = math.min(grant, math.floor(tokens))
  tokens = tokens - take
  redis.call('HSET', KEYS[3], 'tokens', tostring(tokens), 'at', now)
  redis.call('PEXPIRE', KEYS[3], math.ceil(burst * 1000 / rate) + 1000)
  if take < grant then wait, why = math.ceil((1 - tokens) * 1000 / rate), 2 end
  grant = take
end
if grant > 0 then
  redis.call('HINCRBY', KEYS[1], member, grant)
  redis.call('PEXPIRE', KEYS[1], lease * 20)
end
return {grant, wait, why}
`;

/**
 * A member's heartbeat: alive for another lease, the permits it holds kept, the dead forgotten.
 * KEYS: members zset, then the permits hashes this member holds permits in. ARGV: member, lease ms.
 * Returns the number of live members.
 */
const BEAT = `${NOW}
local lease = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], now + lease, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - 60000)
redis.call('PEXPIRE', KEYS[1], 120000)
for i = 2, #KEYS do redis.call('PEXPIRE', KEYS[i], lease * 20) end
return redis.call('ZCOUNT', KEYS[1], now, '+inf')
`;

/**
 * A member saw the server failing (its own breaker opened), or the fleet's probe failed.
 * KEYS: votes zset, open key, probe key. ARGV: member, quorum, cool-down ms, window ms, and the channel
 * an opening is published on (gate-health.ts).
 * Returns 1 when this vote opened the circuit fleet-wide.
 */
const VOTE = `${NOW}
local quorum, cooldown, window = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
redis.call('PEXPIRE', KEYS[1], window)
local probing = redis.call('GET', KEYS[3]) == ARGV[1]
redis.call('DEL', KEYS[3])
if probing or (redis.call('ZCARD', KEYS[1]) >= quorum and redis.call('EXISTS', KEYS[2]) == 0) then
  redis.call('SET', KEYS[2], ARGV[1], 'PX', cooldown)
  if ARGV[5] then redis.call('PUBLISH', ARGV[5], 'open ' .. cooldown .. ' ' .. ARGV[1]) end
  return 1
end
return 0
`;

/**
 * Pauses a server for the fleet and tells every member at once (gate-health.ts).
 * KEYS: pause key. ARGV: member, ms, channel.
 */
const PAUSE = `redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return redis.call('PUBLISH', ARGV[3], 'pause ' .. ARGV[2] .. ' ' .. ARGV[1])`;

/** The probe (or any call while votes stand) succeeded: the circuit closes fleet-wide. KEYS: votes, probe. */
const HEALED = `return redis.call('DEL', KEYS[1], KEYS[2])`;

/**
 * Writes a credential entry if this member still holds its lease and nobody wrote since it read.
 * KEYS: entry hash (rev, data), lease key, issuers zset. ARGV: owner, expected rev, data ('' deletes), now ms, issuer.
 * Returns the new revision, or -1 (lease lost) or -2 (revision moved on).
 */
const COMMIT = `
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return -1 end
local rev = tonumber(redis.call('HGET', KEYS[1], 'rev') or '0')
if rev ~= tonumber(ARGV[2]) then return -2 end
redis.call('DEL', KEYS[2])
if ARGV[3] == '' then
  -- The revision stays, so a writer that read the deleted generation cannot write over a later one.
  redis.call('HDEL', KEYS[1], 'data')
  redis.call('HSET', KEYS[1], 'rev', rev + 1)
  redis.call('ZREM', KEYS[3], ARGV[5])
  return rev + 1
end
redis.call('HSET', KEYS[1], 'rev', rev + 1, 'data', ARGV[3])
redis.call('ZADD', KEYS[3], tonumber(ARGV[4]), ARGV[5])
return rev + 1
`;

/** Extends the lease if this owner holds it. KEYS: lease. ARGV: owner, ms. */
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;

/** Drops the lease if this owner holds it (never another's). KEYS: lease. ARGV: owner. */
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/**
 * Saves a durable run's checkpoint if its stored revision is still the one the writer read.
 * KEYS: run hash (rev, data), runs index zset. ARGV: expected rev, data, run id.
 * Returns the new revision, or -(current revision) - 1 when another writer moved it on.
 */
const SAVE_RUN = `${NOW}
local rev = tonumber(redis.call('HGET', KEYS[1], 'rev') or '0')
if rev ~= tonumber(ARGV[1]) then return -rev - 1 end
redis.call('HSET', KEYS[1], 'rev', rev + 1, 'data', ARGV[2])
redis.call('ZADD', KEYS[2], now, ARGV[3])
return rev + 1
`;

/**
 * Takes a run's lease, or renews it for the owner that holds it. KEYS: lease. ARGV: owner, ms, and
 * optionally a holder found dead: its lease is taken over only if it still holds it.
 * Returns 1, or the owner that holds it.
 */
const LEASE_RUN = `if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] or (ARGV[3] and holder == ARGV[3]) then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
return holder or ''`;

/**
 * Keeps a member's listing if the lists' version is still the one it listed at (a list_changed since
 * makes it stale before it is written). KEYS: version counter, list key. ARGV: version, JSON ('' withdraws), ms.
 */
const KEEP_LIST = `if (redis.call('GET', KEYS[1]) or '0') ~= ARGV[1] then return 0 end
if ARGV[2] == '' then return redis.call('DEL', KEYS[2]) end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
return 1`;

/**
 * Whether a member may keep the permits it holds for another while, taking nothing from anyone: no
 * pause, no open circuit or breaker votes, and the limit has room (so no other member waits on it).
 * KEYS: permits hash, pause key, open key, votes zset. ARGV: max (-1: none), quorum. Returns 1 or 0.
 */
const RENEW_PERMITS = `if redis.call('PTTL', KEYS[2]) > 0 or redis.call('PTTL', KEYS[3]) > 0 then return 0 end
if redis.call('ZCARD', KEYS[4]) >= tonumber(ARGV[2]) then return 0 end
local max = tonumber(ARGV[1])
if max < 0 then return 1 end
local used = 0
for _, held in ipairs(redis.call('HVALS', KEYS[1])) do used = used + tonumber(held) end
if used < max then return 1 end
return 0`;

export const SCRIPTS = {
  sbRenewPermits: { numberOfKeys: 4, lua: RENEW_PERMITS },
  sbKeepList: { numberOfKeys: 2, lua: KEEP_LIST },
  sbPermit: { numberOfKeys: 7, lua: PERMIT },
  sbBeat: { lua: BEAT },
  sbVote: { numberOfKeys: 3, lua: VOTE },
  sbPause: { numberOfKeys: 1, lua: PAUSE },
  sbHealed: { numberOfKeys: 2, lua: HEALED },
  sbCommit: { numberOfKeys: 3, lua: COMMIT },
  sbRenew: { numberOfKeys: 1, lua: RENEW },
  sbRelease: { numberOfKeys: 1, lua: RELEASE },
  sbSaveRun: { numberOfKeys: 2, lua: SAVE_RUN },
  sbLeaseRun: { numberOfKeys: 1, lua: LEASE_RUN },
} as const;

/** The commands the scripts add to a client (ioredis has no types for defined commands). */
export interface FleetCommands {
  sbPermit(...args: Array<string | number>): Promise<[number, number, number]>;
  sbBeat(numberOfKeys: number, ...args: Array<string | number>): Promise<number>;
  sbVote(...args: Array<string | number>): Promise<number>;
  sbPause(...args: Array<string | number>): Promise<number>;
  sbHealed(...args: Array<string | number>): Promise<number>;
  sbCommit(...args: Array<string | number>): Promise<number>;
  sbRenew(...args: Array<string | number>): Promise<number>;
  sbRelease(...args: Array<string | number>): Promise<number>;
  sbSaveRun(...args: Array<string | number>): Promise<number>;
  sbLeaseRun(...args: Array<string | number>): Promise<number | string>;
  sbKeepList(...args: Array<string | number>): Promise<number>;
  sbRenewPermits(...args: Array<string | number>): Promise<number>;
}
