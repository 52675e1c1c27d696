/**
 * The fleet's Lua scripts, defined on the client as commands (ioredis `defineCommand`: sent by SHA,
 * loaded again by ioredis after a Redis restart). Each runs atomically in Redis, so "check the count,
 * then take a permit" cannot interleave with another process's, and each answers in one round trip.
 * Time is Redis's own (`TIME`), so processes with skewed clocks agree on leases and buckets.
 */

const NOW = `local t = redis.call('TIME'); local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/**
 * Gives back `release` permits of this member, keeps one ticket in the server's queue per call of this
 * member still waiting, and hands free permits to the queue's oldest tickets: permits go to waiting
 * calls in the order they asked, whichever member they are in, and a member that releases a permit
 * cannot take it back past the calls queued before its own (docs/guide/fleet.md "Fairness").
 * KEYS: permits hash (member -> count), members zset (member -> alive until), rate hash, pause key,
 *       open key, votes zset, probe key, queue list (one member id per ticket), tickets hash (member ->
 *       tickets queued), handed hash (member -> permits other members ever handed to it: a total, so
 *       the grant message and the next script may both tell the member, and it counts each permit once).
 * ARGV: member, release, waiting (calls of this member waiting now), collected (the handed total this
 *       member has used), max (-1: none), rate per s (0: none), burst, lease ms, quorum, extra
 *       (permits for its idle pool, granted only while nobody queues), the grant channel prefix (a
 *       member handed permits hears `grant <total>` on prefix .. member), the health channel (a member
 *       that starts queueing says so there, gate-health.ts).
 * Returns { granted, waitMs, why, others, handed }: granted by this script (not counting handed ones);
 * why 1 paused (Retry-After), 2 rate, 3 queued behind other calls, 4 this member probes for the fleet,
 * 5 the circuit is open fleet-wide (waitMs: until a probe); others: tickets of other members still
 * queued; handed: the member's handed total.
 */
const PERMIT = `${NOW}
local member = ARGV[1]
local release, waiting, collected = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local max, rate, burst = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local lease, quorum, extra = tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10])
local keep = lease * 20
redis.call('ZADD', KEYS[2], now + lease, member)
if release > 0 then
  if redis.call('HINCRBY', KEYS[1], member, -release) <= 0 then redis.call('HDEL', KEYS[1], member) end
end
-- Permits other members handed to this one and it has not used yet serve its oldest waiting calls.
local handed = tonumber(redis.call('HGET', KEYS[10], member) or '0')
local unused = math.max(0, handed - collected)
local granted = 0
local tickets = tonumber(redis.call('HGET', KEYS[9], member) or '0')
local goal = math.max(0, waiting - unused)
if goal > tickets then
  local add = {}
  for i = 1, goal - tickets do
    add[#add + 1] = member
    if #add == 1000 then redis.call('RPUSH', KEYS[8], unpack(add)) add = {} end
  end
  if #add > 0 then redis.call('RPUSH', KEYS[8], unpack(add)) end
elseif goal < tickets then
  -- Calls that gave up, or were served in this process: their newest tickets go.
  redis.call('LREM', KEYS[8], goal - tickets, member)
end
local function setTickets(n)
  if n > 0 then redis.call('HSET', KEYS[9], member, n) else redis.call('HDEL', KEYS[9], member) end
end
setTickets(goal)
redis.call('PEXPIRE', KEYS[8], keep)
redis.call('PEXPIRE', KEYS[9], keep)
local function refuse(ms)
  -- The circuit is open: this member's calls are refused, so its tickets and handed permits go.
  redis.call('LREM', KEYS[8], 0, member)
  redis.call('HDEL', KEYS[9], member)
  if unused > 0 and redis.call('HINCRBY', KEYS[1], member, -unused) <= 0 then redis.call('HDEL', KEYS[1], member) end
  return {0, ms, 5, 0, handed}
end
local paused = redis.call('PTTL', KEYS[4])
if paused > 0 then return {0, paused, 1, 0, handed} end
local open = redis.call('PTTL', KEYS[5])
if open > 0 then return refuse(open) end
redis.call('ZREMRANGEBYSCORE', KEYS[6], '-inf', now - keep)
if redis.call('ZCARD', KEYS[6]) >= quorum then
  -- The circuit was opened and its cool-down is over: one member probes for the fleet.
  if redis.call('SET', KEYS[7], member, 'NX', 'PX', lease) then
    redis.call('HINCRBY', KEYS[1], member, 1)
    redis.call('PEXPIRE', KEYS[1], keep)
    if goal > 0 then
      redis.call('LREM', KEYS[8], 1, member)
      setTickets(goal - 1)
    end
    return {1, 0, 4, 0, handed}
  elseif redis.call('GET', KEYS[7]) ~= member then return refuse(redis.call('PTTL', KEYS[7]))
  else return {0, 50, 3, 0, handed} end
end
local free = -1
if max >= 0 then
  local used = 0
  local holders = redis.call('HGETALL', KEYS[1])
  for i = 1, #holders, 2 do
    local alive = redis.call('ZSCORE', KEYS[2], holders[i])
    -- A member whose heartbeat stopped (killed) gets its permits taken back.
    if (not alive) or tonumber(alive) < now then redis.call('HDEL', KEYS[1], holders[i])
    else used = used + tonumber(holders[i + 1]) end
  end
  free = math.max(0, max - used)
end
local tokens = 0
if rate > 0 then
  local bucket = redis.call('HMGET', KEYS[3], 'tokens', 'at')
  local at = tonumber(bucket[2]) or now
  tokens = math.min(burst, (tonumber(bucket[1]) or burst) + math.max(0, now - at) * rate / 1000)
end
local function room() return free ~= 0 and (rate <= 0 or tokens >= 1) end
local function take(n)
  if free > 0 then free = free - n end
  if rate > 0 then tokens = tokens - n end
end
local own, woken = 0, {}
while room() do
  local head = redis.call('LPOP', KEYS[8])
  if not head then break end
  if redis.call('HINCRBY', KEYS[9], head, -1) <= 0 then redis.call('HDEL', KEYS[9], head) end
  local alive = redis.call('ZSCORE', KEYS[2], head)
  -- A dead member's tickets are dropped as they come up.
  if alive and tonumber(alive) >= now then
    redis.call('HINCRBY', KEYS[1], head, 1)
    if head == member then own = own + 1
    else
      woken[head] = redis.call('HINCRBY', KEYS[10], head, 1)
    end
    take(1)
  end
end
granted = own
if extra > 0 and room() and redis.call('LLEN', KEYS[8]) == 0 then
  local pool = extra
  if free >= 0 then pool = math.min(pool, free) end
  if rate > 0 then pool = math.min(pool, math.floor(tokens)) end
  if pool > 0 then
    redis.call('HINCRBY', KEYS[1], member, pool)
    granted = granted + pool
    take(pool)
  end
end
if rate > 0 then
  redis.call('HSET', KEYS[3], 'tokens', tostring(tokens), 'at', now)
  redis.call('PEXPIRE', KEYS[3], math.ceil(burst * 1000 / rate) + 1000)
end
redis.call('PEXPIRE', KEYS[1], keep)
for head, total in pairs(woken) do redis.call('PUBLISH', ARGV[11] .. head, 'grant ' .. total) end
local mine = goal - own
setTickets(mine)
local others = redis.call('LLEN', KEYS[8]) - math.max(0, mine)
if mine <= 0 then return {granted, 0, 0, others, handed} end
-- This member starts queueing: members that keep idle permits hear it and give them back.
if tickets == 0 then redis.call('PUBLISH', ARGV[12], 'wanted 1 ' .. member) end
if rate > 0 and tokens < 1 then return {granted, math.ceil((1 - tokens) * 1000 / rate), 2, others, handed} end
return {granted, 0, 3, others, handed}
`;

/**
 * A member's heartbeat: alive for another lease, the permits it holds kept, the dead forgotten.
 * KEYS: members zset, then the hashes keyed by member this member keeps alive (its servers' permits
 * and handed totals). ARGV: member, lease ms.
 * A member silent for a minute leaves the list, and its fields in those hashes go with it: the handed
 * totals outlive every member otherwise, a field per process that ever waited (a restart makes a new one).
 * Returns the number of live members.
 */
const BEAT = `${NOW}
local lease = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], now + lease, ARGV[1])
local dead = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now - 60000, 'LIMIT', 0, 100)
if #dead > 0 then
  redis.call('ZREM', KEYS[1], unpack(dead))
  for i = 2, #KEYS do redis.call('HDEL', KEYS[i], unpack(dead)) end
end
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
 * pause, no open circuit or breaker votes, and no call of another member queued for a permit.
 * KEYS: queue list, pause key, open key, votes zset, tickets hash. ARGV: member, quorum. Returns 1 or 0.
 */
const RENEW_PERMITS = `if redis.call('PTTL', KEYS[2]) > 0 or redis.call('PTTL', KEYS[3]) > 0 then return 0 end
if redis.call('ZCARD', KEYS[4]) >= tonumber(ARGV[2]) then return 0 end
local mine = tonumber(redis.call('HGET', KEYS[5], ARGV[1]) or '0')
if redis.call('LLEN', KEYS[1]) > mine then return 0 end
return 1`;

export const SCRIPTS = {
  sbRenewPermits: { numberOfKeys: 5, lua: RENEW_PERMITS },
  sbKeepList: { numberOfKeys: 2, lua: KEEP_LIST },
  sbPermit: { numberOfKeys: 10, lua: PERMIT },
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
  sbPermit(...args: Array<string | number>): Promise<[number, number, number, number, number]>;
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
