/**
 * Text that came from arguments or from the store (names, metadata, ids, owners) made safe for a
 * terminal: control characters (an ESC that starts a colour or a cursor move, a carriage return
 * that overwrites a line, C1 controls), line and paragraph separators and the bidirectional
 * overrides that reorder what is shown are written as escapes, so what a terminal shows is what is
 * stored, and nothing stored can act on the terminal.
 */

/** Every character escaped: C0 and C1 controls, DEL, U+2028/9, and bidi embeddings and isolates. */
const unsafe = /[\p{Cc}\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

const escaped = (character: string): string => {
  const code = character.codePointAt(0)!;
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u${code.toString(16).padStart(4, "0")}`;
};

/** `text` with every unsafe character as `\xHH` or `\uHHHH`; safe text is returned unchanged. */
export function printable(text: string): string {
  return text.replace(unsafe, escaped);
}

/** `text` in double quotes, printable: how a message names a value the user gave. */
export function quoted(text: string): string {
  return `"${printable(text)}"`;
}

/**
 * JSON for the terminal: `JSON.stringify` escapes C0 controls but leaves DEL, C1 controls and the
 * bidi characters raw. They can only occur inside strings, where `\uHHHH` means the same character,
 * so the output parses to the same value.
 */
export function printableJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    unsafeInJson,
    (character) => `\\u${character.codePointAt(0)!.toString(16).padStart(4, "0")}`,
  );
}

/** What `JSON.stringify` leaves raw of `unsafe` (its own C0 escapes and newlines stay as they are). */
const unsafeInJson = /[\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
