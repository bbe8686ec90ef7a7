/**
 * The fleet history's writes, each one atomic in Redis (keys in cluster-keys.ts `history`). Sizes
 * are Lua byte lengths: a run's `bytes` and the store's total move together.
 */

/**
 * A run's pending events, then its record, in one step: a record never names more than its log
 * holds. A record marked `lost` (its instance died, or this instance restarted) is final: a late
 * write from a replica declared dead neither revives it nor adds to its log. Events of a run
 * with no record (removed by retention, or never recorded) are dropped, so no log is orphaned.
 *
 * KEYS: run, events, runs, done, handle, live(instance), instances, bytes
 * ARGV: hasRecord ('0'/'1'), record, summary, sort, handle, terminal ('0'/'1'), ended ms or '',
 *       instance, runId, state, then the events
 * Returns 1 when written, 0 when refused.
 */
export const WRITE_RUN = `
local state = redis.call('HGET', KEYS[1], 'state')
if state == 'lost' and not (ARGV[1] == '1' and ARGV[10] == 'lost') then return 0 end
if not state and ARGV[1] ~= '1' then return 0 end
local delta = 0
if #ARGV > 10 then
  for i = 11, #ARGV do delta = delta + #ARGV[i] end
  redis.call('RPUSH', KEYS[2], unpack(ARGV, 11))
end
if ARGV[1] == '1' then
  local old = redis.call('HGET', KEYS[1], 'sort')
  if old and old ~= ARGV[4] then
    redis.call('ZREM', KEYS[3], old)
    redis.call('ZREM', KEYS[4], old)
  end
  delta = delta + #ARGV[2] + #ARGV[3]
    - redis.call('HSTRLEN', KEYS[1], 'record') - redis.call('HSTRLEN', KEYS[1], 'summary')
  redis.call('HSET', KEYS[1], 'record', ARGV[2], 'summary', ARGV[3], 'sort', ARGV[4], 'handle', ARGV[5],
    'terminal', ARGV[6], 'ended', ARGV[7], 'instance', ARGV[8], 'state', ARGV[10])
  redis.call('ZADD', KEYS[3], 0, ARGV[4])
  redis.call('SET', KEYS[5], ARGV[9])
  if ARGV[6] == '1' then
    redis.call('ZADD', KEYS[4], 0, ARGV[4])
    redis.call('SREM', KEYS[6], ARGV[9])
  else
    redis.call('ZREM', KEYS[4], ARGV[4])
    redis.call('SADD', KEYS[6], ARGV[9])
    redis.call('SADD', KEYS[7], ARGV[8])
  end
end
redis.call('HINCRBY', KEYS[1], 'bytes', delta)
redis.call('INCRBY', KEYS[8], delta)
return 1
`;

/**
 * Removes one finished run, record and log together (retention). Idempotent: two replicas
 * removing the same run count its bytes once. A run live again is kept.
 *
 * KEYS: run, events, runs, done, bytes
 * ARGV: sort, runId, handle key prefix
 * Returns the bytes freed.
 */
export const REMOVE_RUN = `
local run = redis.call('HMGET', KEYS[1], 'terminal', 'bytes', 'handle')
if run[1] == '0' then return 0 end
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
if not run[1] then return 0 end
local bytes = tonumber(run[2]) or 0
redis.call('DECRBY', KEYS[5], bytes)
redis.call('DEL', KEYS[1], KEYS[2])
if run[3] then
  local handle = ARGV[3] .. run[3]
  if redis.call('GET', handle) == ARGV[2] then redis.call('DEL', handle) end
end
return bytes
`;

/** Deletes a key only while it holds this value (a lock released by its holder alone). KEYS: key; ARGV: value. */
export const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;
