/**
 * Whether `verify`, as this instance is configured, would ever find an imported key: a key stored
 * under a token `verify` never looks up is imported in silence and then refused on every request.
 * Checked per record from its token (a plaintext import) or the prefix its other system recorded
 * (a hash import), with the same test `verify` makes (`KeyResolver.accepts`), no I/O.
 */
import type { KeyResolver } from "../../auth/key-resolvers.js";
import type { ValidationIssue } from "../../errors/validation-issue.js";
import type { KeyFormat } from "../../keys/format.js";
import type { CheckedImportRecord } from "./import-record.js";
import { legacyTokenLength } from "./imports-config.js";

export interface VerifiableCheck {
  format: KeyFormat;
  lookup: KeyResolver;
  /** `imports({ prefixes })`: undefined looks up every token that is neither Keyward's nor a JWT. */
  prefixes: readonly string[] | undefined;
}

/** The issue of a record `verify` would never find, or null when it would find it. */
export function unverifiableIssue(
  record: CheckedImportRecord,
  { format, lookup, prefixes }: VerifiableCheck,
): ValidationIssue | null {
  const refuse = (loc: string, why: string): ValidationIssue => ({
    loc: [loc],
    msg: `Value error, verify would never find this key: ${why}`,
    type: "unverifiable",
  });
  const claimed = `list its prefix in imports({ prefixes })${prefixes ? ` (now ${prefixes.join(", ")})` : ""}`;
  if (record.key !== undefined) {
    const token = record.key;
    // A Keyward key (its checksum holds): found as any native key is.
    if (format.isWellFormed(token)) return null;
    if (lookup.accepts(token, format.isKeyShaped(token))) return null;
    if (token.length < legacyTokenLength.min || token.length > legacyTokenLength.max) {
      return refuse(
        "key",
        `an imported token is ${legacyTokenLength.min} to ${legacyTokenLength.max} characters`,
      );
    }
    if (/[^\x21-\x7e]|\./.test(token)) {
      return refuse(
        "key",
        "it holds a space, a non-ASCII character or a '.' (verify reads a token with '.' as a JWT)",
      );
    }
    if (format.isKeyShaped(token) && prefixes === undefined) {
      return refuse(
        "key",
        `it begins with Keyward's prefix ${format.prefixOf(token)} but is not a Keyward key (a bad checksum to verify); ${claimed}`,
      );
    }
    return refuse("key", `it begins with none of the imported prefixes; ${claimed}`);
  }
  // A hash: only the prefix its system recorded says what the token begins with.
  const prefix = record.prefix;
  if (prefix.includes(".")) {
    return refuse("prefix", "a token with '.' is read as a JWT");
  }
  // No prefix recorded: the token's start is not known, so nothing says verify would miss it.
  if (prefix === "") return null;
  if (prefixes !== undefined) {
    if (prefixes.some((one) => prefix.startsWith(one))) return null;
    return refuse(
      "prefix",
      `its prefix ${prefix} is none of imports({ prefixes }) (${prefixes.join(", ")})`,
    );
  }
  // A foreign token that shares Keyward's prefix reads as a mistyped Keyward key.
  const own = format.prefixes.find((one) => prefix.startsWith(one));
  if (own !== undefined) {
    return refuse(
      "prefix",
      `its prefix ${prefix} begins with Keyward's own ${own} (a bad checksum to verify); ${claimed}`,
    );
  }
  return null;
}
