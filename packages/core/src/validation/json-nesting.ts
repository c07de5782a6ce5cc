/**
 * How deeply a JSON text nests, read before it is parsed. A 64 KiB body can nest 32,000 levels
 * deep; parsing it works, but every recursive walk after that (validation, `JSON.stringify`, a
 * store's encoder) overflows the stack with a `RangeError`, a 500 from a few bytes of input. Bodies
 * are refused past `maxBodyNesting` before anything walks them.
 */

/** The deepest nesting a request body may have; Keyward's own bodies need 4. */
export const maxBodyNesting = 64;

/**
 * Whether `text` opens more than `max` arrays or objects inside one another. A linear scan that
 * skips string contents (brackets inside strings do not count); it does not validate the JSON,
 * which `JSON.parse` does next.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c)
        index++; // a backslash: the next character is escaped
      else if (code === 0x22) inString = false;
      continue;
    }
    if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) {
      if (++depth > max) return true;
    } else if (code === 0x5d || code === 0x7d) depth--;
  }
  return false;
}
