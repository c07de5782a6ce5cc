/**
 * The key record, the record with its secret, the list and the revocation answer, as arktype
 * types: converted to JSON Schema for the document, and checked against the TypeScript types the
 * API returns (below), so the two cannot drift apart.
 */
import { type } from "arktype";
import type { KeyPage, RevokedKey } from "../../api/key-api-types.js";
import type { KeyRecord, KeyWithSecret } from "../../api/key-record.js";
import { maxMetadataBytes } from "../../validation/metadata.js";
import { type Expect, isoDateTime, type SameShape } from "./shared.js";

export function keyRecordTypes(options: {
  scopes: readonly string[];
  tiers: readonly string[];
  keyPrefixes: readonly string[];
  environments: readonly string[];
}) {
  const record = type({
    id: "string",
    name: "string",
    scopes: type.enumerated(...options.scopes).array(),
    tier: type.enumerated(...options.tiers),
    status: "'active' | 'disabled' | 'expired' | 'revoked'",
    hint: "string",
    createdAt: isoDateTime,
    expiresAt: isoDateTime.or("null"),
    lastUsedAt: isoDateTime.or("null"),
    revokedAt: isoDateTime.or("null"),
    "metadata?": metadata,
    "owner?": type({
      type: "'user' | 'organization'",
      id: "string",
    }).describe("The organization that owns the key; only an organization's key has one"),
    "createdBy?": type("string").describe("The member who created the organization's key"),
    "environment?": type
      .enumerated(...options.environments)
      .describe(
        "The key's environment; present only on a key outside the default environment (the first configured)",
      ),
    "allowedIps?": type("string")
      .array()
      .describe(
        "The IPv4/IPv6 addresses and CIDR ranges the key may be used from, in canonical form; present only when it has an allowlist",
      ),
    "resources?": type("Record<string, string[]>").describe(
      "The resources the key may be used for, by kind; present only on a key limited to some",
    ),
    "previousSecretExpiresAt?": isoDateTime.describe(
      "Until when the secret a graceful rotation replaced still works; present only while it does",
    ),
  }).describe("An API key as the API shows it: never the secret, never its hash");
  const secret = type("string")
    .matching(`^${prefixPattern(options.keyPrefixes)}[0-9A-Za-z]{36}$`)
    .describe("The full secret, shown this once");
  const withSecret = record
    .and({ key: secret })
    .describe("The key record with its full secret: only create and rotate return one");
  const list = type({ data: record.array() }).describe(
    "Newest first, revoked and expired included",
  );
  const page = type({
    data: record.array(),
    nextCursor: type("string")
      .or("null")
      .describe("Pass as `cursor` for the next page; null after the last"),
  }).describe("One page of `?limit=`, newest first, revoked and expired included");
  const revoked = type({ id: "string", status: "'revoked'", revokedAt: isoDateTime });
  return { record, withSecret, list, page, revoked };
}

type KeyRecordTypes = ReturnType<typeof keyRecordTypes>;
type WithObjectMetadata<T extends KeyRecord> = Omit<T, "metadata"> & {
  metadata?: Record<string, unknown>;
};
// Compile-time only: each schema infers exactly the type the API returns.
export type KeyRecordTypesMatchTheApi = [
  Expect<SameShape<KeyRecordTypes["record"]["infer"], WithObjectMetadata<KeyRecord>>>,
  Expect<SameShape<KeyRecordTypes["withSecret"]["infer"], WithObjectMetadata<KeyWithSecret>>>,
  Expect<SameShape<KeyRecordTypes["list"]["infer"], { data: WithObjectMetadata<KeyRecord>[] }>>,
  Expect<
    SameShape<
      KeyRecordTypes["page"]["infer"],
      Omit<KeyPage, "data"> & { data: WithObjectMetadata<KeyRecord>[] }
    >
  >,
  Expect<SameShape<KeyRecordTypes["revoked"]["infer"], RevokedKey>>,
];

/**
 * The host's data about a key, as it stored it: any JSON object. Inferred as
 * `Record<string, unknown>`: arktype cannot infer the recursive `KeyMetadata` (TS2589), so the
 * checks below compare records with their metadata widened to that (`WithObjectMetadata`).
 */
const metadata = type("Record<string, unknown>").describe(
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
