/**
 * The key record, the record with its secret, the list and the revocation answer, as arktype
 * types: converted to JSON Schema for the document, and checked against the TypeScript types the
 * API returns (below), so the two cannot drift apart.
 */
import { type } from "arktype";
import type { KeyRecord, KeyWithSecret } from "../../api/key-record.js";
import type { RevokedKey } from "../../api/keys-api.js";
import { type Expect, isoDateTime, type SameShape } from "./shared.js";

export function keyRecordTypes(options: {
  scopes: readonly string[];
  tiers: readonly string[];
  keyPrefix: string;
}) {
  const record = type({
    id: "string",
    name: "string",
    scopes: type.enumerated(...options.scopes).array(),
    tier: type.enumerated(...options.tiers),
    status: "'active' | 'expired' | 'revoked'",
    hint: "string",
    createdAt: isoDateTime,
    expiresAt: isoDateTime.or("null"),
    lastUsedAt: isoDateTime.or("null"),
    revokedAt: isoDateTime.or("null"),
  }).describe("An API key as the API shows it: never the secret, never its hash");
  const secret = type("string")
    .matching(`^${escapeRegExp(options.keyPrefix)}[0-9A-Za-z]{36}$`)
    .describe("The full secret, shown this once");
  const withSecret = record
    .and({ key: secret })
    .describe("The key record with its full secret: only create and rotate return one");
  const list = type({ data: record.array() }).describe(
    "Newest first, revoked and expired included",
  );
  const revoked = type({ id: "string", status: "'revoked'", revokedAt: isoDateTime });
  return { record, withSecret, list, revoked };
}

type KeyRecordTypes = ReturnType<typeof keyRecordTypes>;
// Compile-time only: each schema infers exactly the type the API returns.
export type KeyRecordTypesMatchTheApi = [
  Expect<SameShape<KeyRecordTypes["record"]["infer"], KeyRecord>>,
  Expect<SameShape<KeyRecordTypes["withSecret"]["infer"], KeyWithSecret>>,
  Expect<SameShape<KeyRecordTypes["list"]["infer"], { data: KeyRecord[] }>>,
  Expect<SameShape<KeyRecordTypes["revoked"]["infer"], RevokedKey>>,
];

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
