import type { Schema } from "../validation/schema.js";

/** The most entries one key's IP allowlist may have. */
export const maxAllowlistEntries = 100;

/**
 * IP allowlists on keys, the body fields: the kernel's extension point for `lifecycle()`, which
 * parses addresses and ranges (with ipaddr.js) and checks them at `verify`'s key checks. Without it,
 * `allowedIps` is refused on create and update (422), and a key stored with an allowlist is refused
 * everywhere (403): an allowlist is never ignored.
 */
export interface IpAllowlists {
  /** `allowedIps` on create: a list, written back in canonical text. */
  createField: Schema<string[]>;
  /** `allowedIps` on update: a list, or null to remove the allowlist. */
  updateField: Schema<string[] | null>;
}
