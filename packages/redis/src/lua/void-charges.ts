/**
 * Undoes what one call of `consume-layers.ts` charged to quotas and credits, for a caller that gave
 * up on the call (its deadline passed, its connection failed) and answered its requests 500: those
 * requests were not served, so they must not have spent anything. Exact whichever way the call went:
 *
 * - the call already ran: its "paid" marker lists each charge; each is undone, if the state it went
 *   into is still the one there (the same quota period, the same credit grant and refill: a later
 *   period or a new grant starts afresh, and undoing into it would grant what was never spent);
 * - the call has not run yet (still queued behind a stall, or never to arrive): the "void" marker
 *   makes it change nothing when it does;
 * - either way a second void finds no marker to undo: nothing is undone twice.
 *
 * KEYS[1] the call's "paid" marker, KEYS[2] its "void" marker, KEYS[3…] the state keys the marker
 * names, as the caller read it just before (scripts must declare the keys they touch); ARGV[1] how
 * long the void marker is kept (ms). Returns the number of charges undone, or -1 when the marker
 * names a key the caller did not declare (it was written in between): read it again and retry.
 *
 * A charge line is "<key>\ti\t<field>\t<by>" (a counter increment, taken back: what was added is
 * exactly what an unserved request must not have added), "<key>\tq\t<from>" (a quota, counted in
 * the period starting at <from>) or
 * "<key>\tc\t<cost>\t<grantedAt>\t<refilledAt>" (credits).
 */
import { luaScript } from "../client/lua-script.js";

export const voidChargesScript = luaScript(
  "void-charges",
  `
redis.call('SET', KEYS[2], '1', 'PX', ARGV[1])
local paid = redis.call('GET', KEYS[1])
if not paid then return 0 end
local declared = {}
for i = 3, #KEYS do declared[KEYS[i]] = true end
local lines = {}
for line in string.gmatch(paid, '[^\\n]+') do
  local key, kind, rest = string.match(line, '^([^\\t]+)\\t(%a)\\t(.*)$')
  if not declared[key] then return -1 end
  lines[#lines + 1] = { key, kind, rest }
end
local undone = 0
for i = 1, #lines do
  local key, kind, rest = lines[i][1], lines[i][2], lines[i][3]
  local raw
  if kind == 'i' then
    local field, by = string.match(rest, '^([^\t]+)\t(%-?%d+)$')
    redis.call('HINCRBY', key, field, -tonumber(by))
    undone = undone + 1
  else
    raw = redis.call('GET', key)
  end
  if raw then
    if kind == 'q' then
      -- "<expiresAt>:<from>:<count>"
      local e, from, count = string.match(raw, '^([^:]+):([^:]+):([^:]+)$')
      if from == rest and tonumber(count) > 0 then
        redis.call('SET', key, e .. ':' .. from .. ':' .. string.format('%d', tonumber(count) - 1), 'KEEPTTL')
        undone = undone + 1
      end
    else
      -- "<grantedAt>:<balance>:<refilledAt>"
      local cost, grantedAt, refilledAt = string.match(rest, '^(%d+)\\t(%d+)\\t(%d+)$')
      local g, balance, r = string.match(raw, '^([^:]+):([^:]+):([^:]+)$')
      if g == grantedAt and r == refilledAt then
        redis.call('SET', key, g .. ':' .. string.format('%d', tonumber(balance) + tonumber(cost)) .. ':' .. r)
        undone = undone + 1
      end
    end
  end
end
redis.call('DEL', KEYS[1])
return undone
`,
);
