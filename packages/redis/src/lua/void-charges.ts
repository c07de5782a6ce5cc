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
 * - either way a second void finds no marker to undo: nothing is undone twice;
 * - a call that gave credits back (a negative cost: a settled hold's give-back, a reservation's
 *   hold put into its own layer) is undone only if no balance would go below zero: what it gave was
 *   spent since, or the hold it made was ended since. Then nothing of it is undone, and what it did
 *   stands (the undo is all or nothing, as the call was).
 *
 * KEYS[1] the call's "paid" marker, KEYS[2] its "void" marker, KEYS[3…] the state keys the marker
 * names, as the caller read it just before (scripts must declare the keys they touch); ARGV[1] how
 * long the void marker is kept (ms). Returns the number of charges undone, or -1 when the marker
 * names a key the caller did not declare (it was written in between): read it again and retry.
 *
 * A charge line is "<key>\ti\t<field>\t<by>" (a counter increment, taken back: what was added is
 * exactly what an unserved request must not have added), "<key>\tq\t<from>" (a quota, counted in
 * the period starting at <from>) or
 * "<key>\tc\t<cost>\t<grantedAt>\t<refilledAt>\t<remaining>" (credits; a negative cost was a
 * give-back, taken back; <remaining> is what the grant starts with, the state of credits the charge
 * left there and so dropped).
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
-- First what each line's undo would write, then all of it or none: a give-back taken back from
-- credits spent since would leave a balance below zero (a hold's own layer taken by its settle or
-- the sweep before its reservation's void landed: that undo would give the hold back twice).
-- A call's requests may charge one key several times (a line each): each undo reads the last.
local writes, latest = {}, {}
for i = 1, #lines do
  local key, kind, rest = lines[i][1], lines[i][2], lines[i][3]
  if kind == 'i' then
    local field, by = string.match(rest, '^([^\t]+)\t(%-?%d+)$')
    writes[#writes + 1] = { 'i', key, field, -tonumber(by) }
  else
    local raw = latest[key]
    if raw == nil then raw = redis.call('GET', key) or false end
    -- Credits the charge left at nothing were dropped (consume-layers.ts): that is their state.
    local starts = kind == 'c' and string.match(rest, '^%-?%d+\t(%d+\t%d+\t%d+)$')
    if not raw and starts then
      local grantedAt, refilledAt, remaining = string.match(starts, '^(%d+)\t(%d+)\t(%d+)$')
      raw = grantedAt .. ':' .. remaining .. ':' .. refilledAt
    end
    if raw and kind == 'q' then
      -- "<expiresAt>:<from>:<count>"
      local e, from, count = string.match(raw, '^([^:]+):([^:]+):([^:]+)$')
      if from == rest and tonumber(count) > 0 then
        latest[key] = e .. ':' .. from .. ':' .. string.format('%d', tonumber(count) - 1)
        writes[#writes + 1] = { 'q', key, latest[key] }
      end
    elseif raw then
      -- "<grantedAt>:<balance>:<refilledAt>"
      local cost, grantedAt, refilledAt, remaining = string.match(rest, '^(%-?%d+)\t(%d+)\t(%d+)\t?(%d*)$')
      local g, balance, r = string.match(raw, '^([^:]+):([^:]+):([^:]+)$')
      if g == grantedAt and r == refilledAt then
        local left = tonumber(balance) + tonumber(cost)
        if left < 0 then
          redis.call('DEL', KEYS[1])
          return 0
        end
        -- Back to nothing, credits that start from nothing are dropped, as consume-layers.ts does.
        local empty = left == 0 and g == '0' and r == '0' and remaining == '0'
        latest[key] = g .. ':' .. string.format('%d', left) .. ':' .. r
        writes[#writes + 1] = { 'c', key, latest[key], empty }
      end
    end
  end
end
for i = 1, #writes do
  local write = writes[i]
  if write[1] == 'i' then
    redis.call('HINCRBY', write[2], write[3], write[4])
  elseif write[1] == 'q' then
    redis.call('SET', write[2], write[3], 'KEEPTTL')
  elseif write[4] then
    redis.call('DEL', write[2])
  else
    redis.call('SET', write[2], write[3])
  end
end
local undone = #writes
redis.call('DEL', KEYS[1])
return undone
`,
);
