/** The Lua scripts that make RedisTaskStore's writes atomic (one Redis, keys under the store's prefix). */
import { LuaScript } from './lua-script.js';

const TERMINAL = `local function terminal(s) return s == 'completed' or s == 'failed' or s == 'cancelled' end`;

/**
 * KEYS: task key, owner index, sequence. ARGV: record JSON, max per owner, expire-at ms (0: never),
 * task id, task key prefix. At the cap, the owner's oldest terminal task makes room (vanished index
 * entries are pruned on the way); none terminal: error TASK_LIMIT.
 */
export const CREATE_TASK = new LuaScript(`${TERMINAL}
local max = tonumber(ARGV[2])
if redis.call('ZCARD', KEYS[2]) >= max then
  local live, victim = 0, nil
  for _, id in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
    local raw = redis.call('GET', ARGV[5] .. id)
    if not raw then
      redis.call('ZREM', KEYS[2], id)
    else
      live = live + 1
      if not victim and terminal(cjson.decode(raw).status) then victim = id end
    end
  end
  if live >= max then
    if not victim then return redis.error_reply('TASK_LIMIT') end
    redis.call('DEL', ARGV[5] .. victim)
    redis.call('ZREM', KEYS[2], victim)
  end
end
local seq = redis.call('INCR', KEYS[3])
redis.call('SET', KEYS[1], ARGV[1])
if ARGV[3] ~= '0' then redis.call('PEXPIREAT', KEYS[1], ARGV[3]) end
redis.call('ZADD', KEYS[2], seq, ARGV[4])
return seq`);

/**
 * Compare-and-set. KEYS: task key. ARGV: the JSON the caller read, the new JSON, change channel,
 * change message. Returns 1 when written (and announced), 0 when the record changed meanwhile,
 * -1 when it is gone. The TTL stays.
 */
export const UPDATE_TASK = new LuaScript(`
local current = redis.call('GET', KEYS[1])
if not current then return -1 end
if current ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
redis.call('PUBLISH', ARGV[3], ARGV[4])
return 1`);

/** KEYS: task key, owner index. ARGV: owner, task id. Deletes only the owner's task. */
export const DELETE_TASK = new LuaScript(`
local raw = redis.call('GET', KEYS[1])
if raw and cjson.decode(raw).owner == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[2], ARGV[2])
end
return 0`);
