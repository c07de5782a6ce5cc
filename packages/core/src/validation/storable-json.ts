/**
 * The input policy for free text and JSON that reaches a store: what every store can hold exactly
 * as given. Labels and ids are held to more (`forbidden-characters.ts`); here, in metadata and in
 * what a scanner reports, only what no store can keep is refused:
 *
 * - U+0000, which PostgreSQL refuses in `text` and `jsonb` (an error there, a 500 here);
 * - lone surrogates, which are not Unicode at all: PostgreSQL refuses their `\ud800` escapes in
 *   `jsonb`, and UTF-8 encoders replace them, so two stores would disagree about the same value;
 * - nesting past `maxJsonDepth`, which recursive code (`JSON.stringify`, a store's JSON encoder)
 *   turns into a `RangeError`.
 *
 * Checked iteratively, so the check itself never overflows the stack, whatever it is given.
 */

/** How deeply metadata may nest: objects and arrays inside one another, the top object counting 1. */
export const maxJsonDepth = 32;

// biome-ignore lint/suspicious/noControlCharactersInRegex: U+0000 is exactly what is looked for.
const unstorable = /\u0000|\p{Cs}/u;

/** The first character of `text` no store can hold (`U+0000` or a lone surrogate), or null. */
export function findUnstorableCharacter(text: string): string | null {
  const match = unstorable.exec(text);
  if (!match) return null;
  return `U+${match[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** `text` with every character no store can hold replaced by U+FFFD, for text kept as evidence. */
export function storableText(text: string): string {
  return unstorable.test(text) ? text.replace(new RegExp(unstorable.source, "gu"), "\uFFFD") : text;
}

export type JsonProblem =
  | { kind: "depth" }
  | { kind: "character"; codePoint: string; inKey: boolean }
  | { kind: "value"; what: string };

/**
 * Why `value` cannot be stored as JSON, or null when it can: nested deeper than `maxJsonDepth`, a
 * string or a field name with a character no store can hold, or something JSON has no form for
 * (a function, `undefined`, a number that is not finite, a bigint, a symbol).
 */
export function jsonProblem(value: unknown, maxDepth = maxJsonDepth): JsonProblem | null {
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 1 }];
  while (pending.length > 0) {
    const next = pending.pop()!;
    const current = next.value;
    if (typeof current === "string") {
      const codePoint = findUnstorableCharacter(current);
      if (codePoint) return { kind: "character", codePoint, inKey: false };
      continue;
    }
    if (current === null || typeof current === "boolean") continue;
    if (typeof current === "number") {
      if (!Number.isFinite(current)) return { kind: "value", what: "a number that is not finite" };
      continue;
    }
    if (typeof current !== "object") return { kind: "value", what: `a ${typeof current}` };
    if (next.depth > maxDepth) return { kind: "depth" };
    const children = Array.isArray(current) ? current : Object.values(current);
    if (!Array.isArray(current)) {
      for (const field of Object.keys(current)) {
        const codePoint = findUnstorableCharacter(field);
        if (codePoint) return { kind: "character", codePoint, inKey: true };
      }
    }
    for (const child of children) pending.push({ value: child, depth: next.depth + 1 });
  }
  return null;
}

/** A problem as the sentence a 422 shows. */
export function describeJsonProblem(problem: JsonProblem): string {
  switch (problem.kind) {
    case "depth":
      return `nested deeper than ${maxJsonDepth} levels`;
    case "character":
      return `holds ${problem.codePoint} in a ${problem.inKey ? "field name" : "string"}, which cannot be stored (no NUL characters or lone surrogates)`;
    case "value":
      return `holds ${problem.what}, which JSON cannot represent`;
  }
}
