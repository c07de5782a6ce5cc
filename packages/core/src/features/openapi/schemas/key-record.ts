/**
 * The key record, the record with its secret, the list and the revocation answer, as arktype
 * schema nodes converted to JSON Schema for the document. `responses-match.test.ts` checks every
 * answer of a running instance against them, so the two cannot drift apart.
 */
import type { BaseRoot } from "@ark/schema";
import type { KeyField } from "../../../keys/key-field.js";
import { maxMetadataBytes } from "../../../validation/metadata.js";
import {
  anyObject,
  either,
  isoDateTime,
  listOf,
  nullValue,
  object,
  oneOf,
  string,
} from "./nodes.js";

export function keyRecordTypes(options: {
  scopes: readonly string[];
  tiers: readonly string[];
  keyPrefixes: readonly string[];
  environments: readonly string[];
  /** The listed features' key fields: those with a record schema are on the record. */
  fields: readonly KeyField[];
}) {
  const orNull = either(isoDateTime, nullValue);
  const record = object({
    required: {
      id: string,
      name: string,
      scopes: listOf(oneOf(...options.scopes)),
      tier: oneOf(...options.tiers),
      status: oneOf("active", "disabled", "expired", "revoked"),
      hint: string,
      createdAt: isoDateTime,
      expiresAt: orNull,
      lastUsedAt: orNull,
      revokedAt: orNull,
    },
    optional: {
      metadata,
      owner: object({
        required: { type: oneOf("user", "organization"), id: string },
      }).describe("The organization that owns the key; only an organization's key has one"),
      createdBy: string.describe("The member who created the organization's key"),
      environment: oneOf(...options.environments).describe(
        "The key's environment; present only on a key outside the default environment (the first configured)",
      ),
      previousSecretExpiresAt: isoDateTime.describe(
        "Until when the secret a graceful rotation replaced still works; present only while it does",
      ),
      ...featureFieldNodes(options.fields, "record"),
    },
  }).describe("An API key as the API shows it: never the secret, never its hash");
  const secret = string
    .matching(`^${prefixPattern(options.keyPrefixes)}[0-9A-Za-z]{36}$`)
    .describe("The full secret, shown this once");
  const withSecret = record
    .and(object({ required: { key: secret } }))
    .describe("The key record with its full secret: only create and rotate return one");
  const list = object({ required: { data: listOf(record) } }).describe(
    "Newest first, revoked and expired included",
  );
  const page = object({
    required: {
      data: listOf(record),
      nextCursor: either(string, nullValue).describe(
        "Pass as `cursor` for the next page; null after the last",
      ),
    },
  }).describe("One page of `?limit=`, newest first, revoked and expired included");
  const revoked = object({
    required: { id: string, status: oneOf("revoked"), revokedAt: isoDateTime },
  });
  return { record, withSecret, list, page, revoked };
}

/** The OpenAPI nodes the listed features' key fields give for the record, events or usage. */
export function featureFieldNodes(
  fields: readonly KeyField[],
  where: "record" | "event" | "usage",
): Record<string, BaseRoot> {
  const nodes: Record<string, BaseRoot> = {};
  for (const field of fields) {
    const node = field.schema?.[where];
    if (node !== undefined) nodes[field.name] = node;
  }
  return nodes;
}

/** The host's data about a key, as it stored it: any JSON object. */
const metadata = anyObject.describe(
  `The host's data about the key, a JSON object of at most ${maxMetadataBytes} bytes; present only when set`,
);

/** One prefix as itself; several (environments) as alternatives. */
function prefixPattern(prefixes: readonly string[]): string {
  const escaped = prefixes.map(escapeRegExp);
  return escaped.length === 1 ? escaped[0]! : `(?:${escaped.join("|")})`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
