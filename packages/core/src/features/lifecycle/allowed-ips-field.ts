import type { KeyField } from "../../keys/key-field.js";
import { type Schema, schemaNode } from "../../validation/schema.js";
import { allowedIpsSchema, maxAllowedIps } from "./allowed-ips-schema.js";

/** A list of texts, as the record and events hold an allowlist (for the OpenAPI document). */
const textList = schemaNode<string[]>({ proto: Array, sequence: "string" });

/** The JSON Schema of an allowlist in a request body. */
const allowlist = {
  type: "array",
  items: {
    type: "string",
    maxLength: 64,
    description:
      "An IPv4 or IPv6 address (`203.0.113.7`, `2001:db8::1`) or CIDR range (`203.0.113.0/24`, `2001:db8::/32`); no zone ids, no bits set past the prefix length. IPv4-mapped IPv6 is read as IPv4.",
  },
  minItems: 1,
  maxItems: maxAllowedIps,
  uniqueItems: true,
};

/**
 * `allowedIps`, the key field of IP allowlists: on create (a list), on update (a list, or null to
 * remove it), on the record and in `key.created` / `key.updated`, in canonical text.
 */
export const allowedIpsField: KeyField<string[]> = {
  name: "allowedIps",
  create: allowedIpsSchema({ nullable: false }) as Schema<string[]>,
  update: allowedIpsSchema({ nullable: true }),
  schema: {
    create: {
      ...allowlist,
      description: `The addresses and ranges the key may be used from (1–${maxAllowedIps}, every bad entry reported at once); requests from elsewhere are refused with 403 \`ip_not_allowed\`. Omitted: anywhere.`,
    },
    update: {
      anyOf: [allowlist, { type: "null" }],
      description: `Replaces the addresses and ranges the key may be used from (1–${maxAllowedIps}); null removes the allowlist.`,
    },
    record: textList.describe(
      "The IPv4/IPv6 addresses and CIDR ranges the key may be used from, in canonical form; present only when it has an allowlist",
    ),
    event: textList.describe("The key's IP allowlist, when created with one"),
  },
};
