/**
 * The client address of a key's last use (`permissions({ recordAddress })`), in its usage hash's
 * field `addr` as "<at> <address>": when the use was (epoch ms, on the callers' clocks like `last`)
 * and the address. The scripts that count usage (`usage.ts`, `consume.ts`, `consume-layers.ts`) keep
 * the latest one with this helper, as every store does (`isLaterAddress` in `@keyward/core`).
 */

/**
 * `laterAddress(incoming, kept)`: whether the record `incoming` ("<at> <address>") replaces `kept`
 * (the stored one, or nil): a later use wins, and of two at the same millisecond the greater
 * address byte by byte. Not Lua's `>` on strings, which follows the server's locale (`strcoll`).
 */
export const luaLaterAddress = `local function laterAddress(incoming, kept)
  if not kept then return true end
  local keptAt, keptAddress = string.match(kept, '^(%d+) (.+)$')
  if not keptAt then return true end
  local at, address = string.match(incoming, '^(%d+) (.+)$')
  at, keptAt = tonumber(at), tonumber(keptAt)
  if at ~= keptAt then return at > keptAt end
  for i = 1, math.min(#address, #keptAddress) do
    local a, b = string.byte(address, i), string.byte(keptAddress, i)
    if a ~= b then return a > b end
  end
  return #address > #keptAddress
end
`;

/** The record of an address seen at `at` (epoch ms), as the scripts take and store it. */
export function addressRecord(at: number, address: string): string {
  return `${Math.round(at)} ${address}`;
}
