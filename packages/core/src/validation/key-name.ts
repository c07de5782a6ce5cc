import { findForbiddenCharacter, forbiddenCharacterNames } from "./forbidden-characters.js";

/** The longest key name, in characters (code points) after trimming. */
export const maxKeyNameLength = 100;

export type KeyNameCheck =
  | { ok: true; name: string }
  | { ok: false; type: "string_too_short" | "string_too_long" | "value_error"; msg: string };

/**
 * The key-name rule, the same for every store: leading and trailing whitespace is removed (as
 * Pydantic's `str_strip_whitespace`), and what remains must be 1–100 characters with no control,
 * bidi-override or lone-surrogate character. Issues use Pydantic's types and messages, checked in
 * Pydantic's order: length first, then content.
 *
 * @example
 * checkKeyName("  deploy bot "); // { ok: true, name: "deploy bot" }
 * checkKeyName("   "); // { ok: false, type: "string_too_short", ... }
 */
export function checkKeyName(raw: string): KeyNameCheck {
  const name = raw.trim();
  // Characters as people count them (code points), not UTF-16 units; the spread only runs when
  // the units alone could be over the limit.
  const length = name.length <= maxKeyNameLength ? name.length : [...name].length;
  if (length === 0) {
    return {
      ok: false,
      type: "string_too_short",
      msg: "String should have at least 1 character",
    };
  }
  if (length > maxKeyNameLength) {
    return {
      ok: false,
      type: "string_too_long",
      msg: `String should have at most ${maxKeyNameLength} characters`,
    };
  }
  const forbidden = findForbiddenCharacter(name);
  if (forbidden) {
    return {
      ok: false,
      type: "value_error",
      msg: `Value error, name must not contain ${forbiddenCharacterNames[forbidden.kind]} (found ${forbidden.codePoint})`,
    };
  }
  return { ok: true, name };
}
