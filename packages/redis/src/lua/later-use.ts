/**
 * The fields a key's latest use wrote (`UsageIncrement.useFields`, a text Keyward encodes and this
 * store never reads), in its usage hash's field `use` as "<at> <fields>": when the use was (epoch
 * ms, on the callers' clocks like `last`) and the text. The scripts that count usage (`usage.ts`,
 * `consume.ts`, `consume-layers.ts`) keep the latest with this helper, as every store does
 * (`isLaterUse` in `@keyward/core`).
 */

/**
 * `laterUse(incoming, kept)`: whether the record `incoming` ("<at> <fields>") replaces `kept`
 * (the stored one, or nil): a later use wins, and of two at the same millisecond the greater
 * text byte by byte. Not Lua's `>` on strings, which follows the server's locale (`strcoll`).
 */
export const luaLaterUse = `local function laterUse(incoming, kept)
  if not kept then return true end
  local keptAt, keptFields = string.match(kept, '^(%d+) (.+)$')
  if not keptAt then return true end
  local at, fields = string.match(incoming, '^(%d+) (.+)$')
  at, keptAt = tonumber(at), tonumber(keptAt)
  if at ~= keptAt then return at > keptAt end
  for i = 1, math.min(#fields, #keptFields) do
    local a, b = string.byte(fields, i), string.byte(keptFields, i)
    if a ~= b then return a > b end
  end
  return #fields > #keptFields
end
`;

/** The record of use fields written at `at` (epoch ms), as the scripts take and store it. */
export function useRecord(at: number, fields: string): string {
  return `${Math.round(at)} ${fields}`;
}
