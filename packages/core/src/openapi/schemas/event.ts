/**
 * An event and a page of the audit log as arktype types, converted to JSON Schema for the document.
 * One variant per event type, so a client generator sees each type's `data`.
 */
import { type } from "arktype";
import { eventTypes } from "../../event-model/event.js";
import { isoDateTime } from "./shared.js";

export function eventTypesSchema() {
  // Plain strings, not the configured enums: an event outlives a scope or tier removed later.
  const scopes = type("string[]");
  const metadata = type("Record<string, unknown>").describe("The key's metadata, as set");
  const common = {
    id: type("string").describe("`evt_` and 24 base62 characters; stable and unique"),
    occurredAt: isoDateTime,
    owner: type({ type: "'user' | 'organization'", id: "string" }).describe("Whose key it is"),
    keyId: "string",
    actor: type({ type: "'user'", id: "string" })
      .or({ type: "'operator'" })
      .or({ type: "'system'" })
      .or({ type: "'secret_scanner'", id: "string" })
      .describe(
        "Who made the change: a signed-in user, the host's own code (operator), Keyward itself (system: time- and usage-based events), or a secret scanner's signed report (secret_scanner, id github)",
      ),
  } as const;
  const empty = type({}).describe("Nothing beyond the event's own fields");
  const period = type("'day' | 'month'");
  const rateLimit = type({ limit: "number", window: "string | number", "algorithm?": "string" });
  const limits = type({
    "rateLimit?": rateLimit.describe("The per-key rate limit"),
    "ownerRateLimit?": rateLimit
      .or("false")
      .describe("The owner's shared allowance this key counts against; false: none"),
    "quota?": type({ limit: "number", period })
      .or("false")
      .describe("The owner's quota this key counts against; false: none"),
    "credits?": type({
      remaining: "number",
      "refill?": type({ amount: "number", period }),
    }).describe("Credits as granted"),
  }).describe("The key's per-key limits (an operator's overrides of its tier)");
  const event = type({
    ...common,
    type: "'key.created'",
    data: type({
      name: "string",
      scopes,
      tier: "string",
      expiresAt: isoDateTime.or("null"),
      hint: "string",
      createdBy: "string",
      "metadata?": metadata,
      "environment?": type("string").describe(
        "The key's environment, with environments configured",
      ),
      "allowedIps?": type("string[]").describe("The key's IP allowlist, when created with one"),
    }),
  })
    .or({
      ...common,
      type: "'key.rotated'",
      data: type({ previousHint: "string", hint: "string" }),
    })
    .or({
      ...common,
      type: "'key.updated'",
      data: type({
        changes: type({
          "name?": "string",
          "scopes?": scopes,
          "metadata?": metadata.or("null"),
          "allowedIps?": type("string[]")
            .or("null")
            .describe("The new IP allowlist; null when it was removed"),
          "limits?": limits.or("null").describe("The key's new per-key limits; null when cleared"),
        }),
      }).describe("The fields the change set that differ from before, with their new values"),
    })
    .or({ ...common, type: "'key.disabled'", data: empty })
    .or({ ...common, type: "'key.enabled'", data: empty })
    .or({ ...common, type: "'key.revoked'", data: empty })
    .or({
      ...common,
      type: "'key.expiring'",
      data: type({ expiresAt: isoDateTime }).describe(
        "The key expires within the configured lead time; written once per key and expiry",
      ),
    })
    .or({
      ...common,
      type: "'key.inactive'",
      data: type({ lastUsedAt: isoDateTime.or("null"), disablesAt: isoDateTime }).describe(
        "The key has gone unused long enough to be disabled at disablesAt unless used before (permissions({ disableAfterUnused })); written once per key and last use",
      ),
    })
    .or({
      ...common,
      type: "'quota.threshold'",
      data: type({
        threshold: "80 | 100",
        limit: "number",
        used: type("number").describe("Requests in the period, counting the one that crossed"),
        period,
        resetsAt: isoDateTime,
      }).describe("The owner's quota for the period reached 80 % or 100 %, by this key's request"),
    })
    .or({
      ...common,
      type: "'credits.exhausted'",
      data: type({
        refillsAt: isoDateTime.or("null"),
      }).describe("The key's credits reached 0; refillsAt: when a refill sets them back, or null"),
    })
    .or({
      ...common,
      type: "'key.leaked'",
      data: type({
        action: type("'revoked' | 'reported' | 'already_revoked'").describe(
          "revoked: this report revoked the key; reported: report-only mode, the key still works; already_revoked: it was revoked before",
        ),
        hint: type("string").describe("The hint of the secret that leaked"),
        tokenType: "string",
        url: type("string | null").describe("Where the scanner found it, as it reported"),
        source: type("string | null").describe("The scanner's source of the find, as it reported"),
      }).describe("A secret scanner found the key's secret in public; once per key and url"),
    })
    .describe(
      `Something that happened to a key: ${eventTypes.join(", ")}. Never a secret or a hash. More types will come: ignore those you do not know.`,
    );
  const page = type({
    data: event.array(),
    nextCursor: type("string")
      .or("null")
      .describe("Pass as `cursor` for the next page; null after the last"),
  }).describe("One page of the key's events, newest first");
  return { event, page };
}
