/**
 * Code-unit order, the one string order every Keyward store sorts by: JavaScript's `<` on
 * strings, which is what PostgreSQL's `COLLATE "C"` gives for the ASCII-only values we store, and
 * unlike `localeCompare` the same on every machine.
 */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
