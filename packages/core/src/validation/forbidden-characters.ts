/**
 * Characters no stored label or identifier may contain, whatever the store. Each one either breaks
 * a store (PostgreSQL refuses U+0000 in text), changes on the way in (a lone surrogate becomes
 * U+FFFD once encoded as UTF-8, so memory and PostgreSQL would disagree about the same value), or
 * lets a value disguise itself where it is shown (bidi overrides reorder the text around them:
 * "Trojan Source", CVE-2021-42574).
 */
const forbidden = /[\p{Cc}\u202A-\u202E\u2066-\u2069]|\p{Cs}/u;

export type ForbiddenCharacterKind = "control" | "bidi" | "surrogate";

export interface ForbiddenCharacter {
  kind: ForbiddenCharacterKind;
  /** The character as `U+XXXX`, safe to show: it names the character without printing it. */
  codePoint: string;
}

/**
 * The first forbidden character in `text`, or `null`: Unicode control characters (category Cc,
 * U+0000–U+001F and U+007F–U+009F), bidi embeddings, overrides and isolates (U+202A–U+202E,
 * U+2066–U+2069), and lone surrogates (text that is not valid Unicode).
 *
 * @example
 * findForbiddenCharacter("deploy bot"); // null
 * findForbiddenCharacter("a\u0000b"); // { kind: "control", codePoint: "U+0000" }
 */
export function findForbiddenCharacter(text: string): ForbiddenCharacter | null {
  const match = forbidden.exec(text);
  if (!match) return null;
  const code = match[0].codePointAt(0)!;
  const kind: ForbiddenCharacterKind =
    code >= 0xd800 && code <= 0xdfff ? "surrogate" : code >= 0x202a ? "bidi" : "control";
  return { kind, codePoint: `U+${code.toString(16).toUpperCase().padStart(4, "0")}` };
}

/** What each kind of forbidden character is called in an error message. */
export const forbiddenCharacterNames: Record<ForbiddenCharacterKind, string> = {
  control: "a control character",
  bidi: "a bidirectional override, embedding or isolate character",
  surrogate: "a lone surrogate (the text is not valid Unicode)",
};
