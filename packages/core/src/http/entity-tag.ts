/**
 * Entity tags of key records. A record's tag names the key and the version of the stored record
 * (`StoredKey.version`), so a tag copied from one key never matches another key that happens to be
 * at the same version. Tags are strong: `If-Match` compares strongly (RFC 9110 §13.1.1), and a
 * weak tag would never match there.
 */
import type { VersionPrecondition } from "../api/key-api-types.js";

/** The `ETag` of a response showing version `version` of key `keyId`. */
export function keyEntityTag(keyId: string, version: number): string {
  return `"${keyId}.${version}"`;
}

/** `"<id>.<version>"`, or a weak tag, in a list as `If-Match` carries one. */
const listedTag = /(W\/)?"([^"]*)"/g;

/**
 * The precondition an `If-Match` header sets on a change of key `keyId`: the versions its tags
 * name. No header, or `*` (any current record: the key was found), sets none. A weak tag, another
 * key's tag or a malformed one names no version, so a header of only those fails (412), as the
 * RFC asks of a tag that does not match.
 */
export function ifMatchPrecondition(
  header: string | null,
  keyId: string,
): VersionPrecondition | undefined {
  if (header === null || header.trim() === "*") return undefined;
  const versions: number[] = [];
  for (const [, weak, tag] of header.matchAll(listedTag)) {
    if (weak || !tag?.startsWith(`${keyId}.`)) continue;
    const version = tag.slice(keyId.length + 1);
    if (/^[1-9][0-9]{0,14}$/.test(version)) versions.push(Number(version));
  }
  return { versions };
}
