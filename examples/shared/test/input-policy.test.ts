/**
 * One input policy, whatever the store: every bad input below goes through `keyward.handle` on
 * memory, PGlite, a real PostgreSQL and a real Redis, and gets the same status, body and
 * `WWW-Authenticate` on each, without changing what the store holds. Before the policy moved into
 * core, a NUL in a name, a key id or a JWT `sub`, and a 5,000-character `sub`, were 500s on
 * PostgreSQL and 2xx in memory.
 *
 * This file lives here because this package already depends on both store packages and on their
 * drivers (pg, ioredis); the stores come from `support/stores-under-test.ts`. Needs PostgreSQL on
 * 127.0.0.1:5432 and Redis on 127.0.0.1:6379: skipped with a notice outside CI when either is down,
 * failed in CI.
 */

import { isDeepStrictEqual } from "node:util";
import { events } from "@keyward/core/events";
import { lifecycle } from "@keyward/core/lifecycle";
import {
  DEMO_SCOPE_DESCRIPTIONS,
  DEMO_TIER_LIMITS,
  demoTiers,
} from "@keyward/testing/demo-contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeOnServer } from "../../../packages/postgres/test/support/databases.js";
import { redisAvailable } from "../../../packages/redis/test/support/local-redis.js";
import { mintToken } from "../src/token.js";
import { type StoreUnderTest, storesUnderTest } from "./support/stores-under-test.js";

const jwtSecret = "input-policy-test-secret-of-32-bytes!";
const basePath = "/api/v1/api-keys";
const config = {
  scopes: DEMO_SCOPE_DESCRIPTIONS,
  tiers: demoTiers(DEMO_TIER_LIMITS),
  jwt: { secret: jwtSecret },
  // PATCH and the audit log take input too.
  features: [lifecycle(), events()],
};

/** What a request got: the parts that must be the same on every store. */
interface Answer {
  status: number;
  body: unknown;
  challenge: string | null;
}

interface BadInput {
  name: string;
  /** The session's `sub`; default the user who owns a real key on every store. */
  sub?: string;
  /** The request, with that session's token and the id of the user's real key on that store. */
  request(token: string, keyId: string): Request;
  expected: Answer;
}

const send = (method: string, path: string, token: string, body?: string) =>
  new Request(`http://keyward.test${basePath}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body }),
  });

const createBody = (fields: Record<string, unknown>) =>
  JSON.stringify({ name: "ci", scopes: ["profile:read"], tier: "free", ...fields });

const nameIssue = (msg: string, type = "value_error"): Answer => ({
  status: 422,
  body: { detail: [{ loc: ["body", "name"], msg, type }], code: "validation_failed" },
  challenge: null,
});

const notFound: Answer = {
  status: 404,
  body: { detail: "API key not found", code: "key_not_found" },
  challenge: null,
};

const refusedSub = (detail: string): Answer => ({
  status: 401,
  body: { detail, code: "invalid_token" },
  challenge: `Bearer error="invalid_token", error_description="${detail}"`,
});

/** Bodies with bad fields, from a valid session. */
const badBodies: BadInput[] = [
  {
    name: "a NUL in the name",
    request: (token) => send("POST", "", token, createBody({ name: "ci\u0000bot" })),
    expected: nameIssue("Value error, name must not contain a control character (found U+0000)"),
  },
  {
    name: "a line break inside the name",
    request: (token) => send("POST", "", token, createBody({ name: "ci\nbot" })),
    expected: nameIssue("Value error, name must not contain a control character (found U+000A)"),
  },
  {
    name: "a whitespace-only name",
    request: (token) => send("POST", "", token, createBody({ name: " \t\u3000 " })),
    expected: nameIssue("String should have at least 1 character", "string_too_short"),
  },
  {
    name: "a name with a right-to-left override",
    request: (token) => send("POST", "", token, createBody({ name: "invoice\u202Efdp.exe" })),
    expected: nameIssue(
      "Value error, name must not contain a bidirectional override, embedding or isolate character (found U+202E)",
    ),
  },
  {
    name: "a name with a bidi isolate",
    request: (token) => send("POST", "", token, createBody({ name: "ci\u2067bot" })),
    expected: nameIssue(
      "Value error, name must not contain a bidirectional override, embedding or isolate character (found U+2067)",
    ),
  },
  {
    name: "a name with a lone surrogate",
    // Written as JSON text: JSON.stringify would escape it the same way, but this is what a
    // client sends.
    request: (token) =>
      send("POST", "", token, '{"name":"ci\\ud800","scopes":["profile:read"],"tier":"free"}'),
    expected: nameIssue(
      "Value error, name must not contain a lone surrogate (the text is not valid Unicode) (found U+D800)",
    ),
  },
  {
    name: "a name of 101 characters after trimming",
    request: (token) => send("POST", "", token, createBody({ name: `  ${"n".repeat(101)}  ` })),
    expected: nameIssue("String should have at most 100 characters", "string_too_long"),
  },
  {
    name: "an expiresAt past year 9999 through its offset",
    request: (token) =>
      send("POST", "", token, createBody({ expiresAt: "9999-12-31T23:30:00-01:00" })),
    expected: {
      status: 422,
      body: {
        detail: [
          {
            loc: ["body", "expiresAt"],
            msg: "Input should be less than or equal to 9999-12-31T23:59:59Z",
            type: "less_than_equal",
          },
        ],
        code: "validation_failed",
      },
      challenge: null,
    },
  },
  {
    name: "an expanded-year expiresAt",
    request: (token) =>
      send("POST", "", token, createBody({ expiresAt: "+010000-01-01T00:00:00Z" })),
    expected: {
      status: 422,
      body: {
        detail: [
          {
            loc: ["body", "expiresAt"],
            msg: "Input should be a valid datetime in ISO 8601 format",
            type: "datetime_parsing",
          },
        ],
        code: "validation_failed",
      },
      challenge: null,
    },
  },
  {
    name: "a NUL in a scope and in the tier",
    request: (token) =>
      send("POST", "", token, createBody({ scopes: ["profile:read\u0000"], tier: "free\u0000" })),
    expected: {
      status: 422,
      body: {
        detail: [
          {
            loc: ["body", "scopes", 0],
            msg: "Input should be 'profile:read', 'profile:write', 'org:read' or 'org:write'",
            type: "literal_error",
          },
          {
            loc: ["body", "tier"],
            msg: "Input should be 'free', 'pro' or 'enterprise'",
            type: "literal_error",
          },
        ],
        code: "validation_failed",
      },
      challenge: null,
    },
  },
];

const metadataIssue = (msg: string): Answer => ({
  status: 422,
  body: {
    detail: [
      { loc: ["body", "metadata"], msg: `Value error, metadata ${msg}`, type: "value_error" },
    ],
    code: "validation_failed",
  },
  challenge: null,
});

const unstorable = (codePoint: string, where: "string" | "field name") =>
  metadataIssue(
    `holds ${codePoint} in a ${where}, which cannot be stored (no NUL characters or lone surrogates)`,
  );

/** `{"a":{"a":…}}` nested `depth` objects deep, as JSON text. */
const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;

const cursorIssue: Answer = {
  status: 422,
  body: {
    detail: [
      {
        loc: ["query", "cursor"],
        msg: "Value error, not a cursor this API issued",
        type: "value_error",
      },
    ],
    code: "validation_failed",
  },
  challenge: null,
};

/** A cursor as the API encodes one: base64url of `<time>.<id>`. */
const forgedCursor = (text: string) =>
  btoa(String.fromCharCode(...new TextEncoder().encode(text)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

/** Metadata no store can hold, on create and on update, and JSON nested past any use. */
const badMetadata: BadInput[] = [
  {
    name: "a NUL in a metadata value (create)",
    request: (token) => send("POST", "", token, createBody({ metadata: { note: "a\u0000b" } })),
    expected: unstorable("U+0000", "string"),
  },
  {
    name: "a NUL in a metadata field name (create)",
    request: (token) => send("POST", "", token, createBody({ metadata: { "a\u0000b": 1 } })),
    expected: unstorable("U+0000", "field name"),
  },
  {
    name: "a lone surrogate deep in metadata (create)",
    request: (token) =>
      send(
        "POST",
        "",
        token,
        '{"name":"ci","scopes":["profile:read"],"tier":"free","metadata":{"a":[{"b":"x\\udc00"}]}}',
      ),
    expected: unstorable("U+DC00", "string"),
  },
  {
    name: "a NUL in a metadata value (PATCH)",
    request: (token, keyId) =>
      send("PATCH", `/${keyId}`, token, JSON.stringify({ metadata: { note: "a\u0000b" } })),
    expected: unstorable("U+0000", "string"),
  },
  {
    name: "a lone surrogate in a metadata field name (PATCH)",
    request: (token, keyId) => send("PATCH", `/${keyId}`, token, '{"metadata":{"\\ud800":1}}'),
    expected: unstorable("U+D800", "field name"),
  },
  {
    name: "metadata 40 levels deep (PATCH)",
    request: (token, keyId) => send("PATCH", `/${keyId}`, token, `{"metadata":${nested(40)}}`),
    expected: metadataIssue("nested deeper than 32 levels"),
  },
  {
    name: "metadata 5,000 levels deep (create)",
    request: (token) =>
      send(
        "POST",
        "",
        token,
        `{"name":"ci","scopes":["profile:read"],"tier":"free","metadata":${nested(5_000)}}`,
      ),
    expected: {
      status: 400,
      body: {
        detail: "JSON in request body is nested deeper than 64 levels",
        code: "malformed_body",
      },
      challenge: null,
    },
  },
];

/** Page cursors no page handed out, on the key list and the audit log. */
const badCursors: BadInput[] = [
  ["1.a\u0000b", "a NUL in the id"],
  ["-9007199254740991.k", "the most negative time"],
  ["9007199254740991.key_000000000000000000000000", "a time past any date"],
  ["1.' OR 1=1 --", "SQL in the id"],
].flatMap(([text, label]): BadInput[] => [
  {
    name: `a cursor with ${label} (key list)`,
    request: (token) => send("GET", `?limit=2&cursor=${forgedCursor(text!)}`, token),
    expected: cursorIssue,
  },
  {
    name: `a cursor with ${label} (events list)`,
    request: (token, keyId) =>
      send("GET", `/${keyId}/events?limit=2&cursor=${forgedCursor(text!)}`, token),
    expected: cursorIssue,
  },
]);

/** Key ids in paths that were never issued, from a valid session. */
const badKeyIds: BadInput[] = [
  {
    name: "a NUL for the key id (rotate)",
    request: (token) => send("POST", "/key_%00/rotate", token),
    expected: notFound,
  },
  {
    name: "a real key id with a NUL after it (usage)",
    request: (token, keyId) => send("GET", `/${keyId}%00/usage`, token),
    expected: notFound,
  },
  {
    name: "a real key id with a bidi override inside (revoke)",
    request: (token, keyId) =>
      send("DELETE", `/${keyId.slice(0, 6)}%E2%80%AE${keyId.slice(6)}`, token),
    expected: notFound,
  },
  {
    name: "a 5,000-character key id (revoke)",
    request: (token) => send("DELETE", `/key_${"k".repeat(5_000)}`, token),
    expected: notFound,
  },
  {
    name: "a key id one character short (rotate)",
    request: (token, keyId) => send("POST", `/${keyId.slice(0, -1)}/rotate`, token),
    expected: notFound,
  },
];

function randomText(length: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  return Array.from(bytes, (byte) => String.fromCharCode(0x61 + (byte % 26))).join("");
}

/** Session tokens whose `sub` no store could keep: refused before any store is asked. */
const badSubjects: BadInput[] = (
  [
    ["a NUL", "user\u0000", "Token subject contains a control character (U+0000)"],
    ["a line break", "user\n2", "Token subject contains a control character (U+000A)"],
    [
      "a bidi override",
      "user\u202E",
      "Token subject contains a bidirectional override, embedding or isolate character (U+202E)",
    ],
    // Random text: PostgreSQL compresses index entries, so 5,000 repeated letters would fit.
    ["5,000 characters", randomText(5_000), "Token subject is longer than 255 characters"],
  ] as const
).flatMap(([label, sub, detail]): BadInput[] => [
  {
    name: `a sub with ${label}: list`,
    sub,
    request: (token) => send("GET", "", token),
    expected: refusedSub(detail),
  },
  {
    name: `a sub with ${label}: create`,
    sub,
    request: (token) => send("POST", "", token, createBody({})),
    expected: refusedSub(detail),
  },
  {
    name: `a sub with ${label}: rotate a real key`,
    sub,
    request: (token, keyId) => send("POST", `/${keyId}/rotate`, token),
    expected: refusedSub(detail),
  },
]);

const owner = `input-policy-${crypto.randomUUID()}`;
const tokens = new Map<string, Promise<string>>();
const tokenFor = (sub: string) => {
  let token = tokens.get(sub);
  if (!token) {
    token = mintToken({ sub, tier: "pro", secret: jwtSecret });
    tokens.set(sub, token);
  }
  return token;
};

async function answerOf(response: Response): Promise<Answer> {
  const text = await response.text();
  return {
    status: response.status,
    body: text ? JSON.parse(text) : null,
    challenge: response.headers.get("www-authenticate"),
  };
}

describeOnServer("one input policy on every store", () => {
  describe.skipIf(!redisAvailable)("memory, PGlite, PostgreSQL and Redis", () => {
    const stores: StoreUnderTest[] = [];
    /** The id of the owner's real key, per store. */
    const keyIds = new Map<string, string>();

    beforeAll(async () => {
      stores.push(...(await storesUnderTest(config)));

      const token = await tokenFor(owner);
      for (const store of stores) {
        const created = await answerOf(
          await store.keyward.handle(send("POST", "", token, createBody({ name: "real" }))),
        );
        expect(created.status, store.name).toBe(201);
        keyIds.set(store.name, (created.body as { id: string }).id);
      }
    });

    afterAll(async () => {
      for (const store of stores) {
        await store.keyward.close();
        await store.close();
      }
    });

    /**
     * Sends the input to every store; asserts the expected answer on each (so a difference shows
     * as one store's answer beside the others'), then that no store changed. A refused session
     * must not even leave rate-limit state behind.
     */
    const check = async (input: BadInput) => {
      const token = await tokenFor(input.sub ?? owner);
      const answers: Record<string, Answer> = {};
      const changes: Record<string, { before: unknown; after: unknown }> = {};
      for (const store of stores) {
        const read = async () => ({
          stored: await (input.expected.status === 401 ? store.dumpAll() : store.dump()),
          listed: await store.keyward.keys.list(owner),
        });
        const before = await read();
        answers[store.name] = await answerOf(
          await store.keyward.handle(input.request(token, keyIds.get(store.name)!)),
        );
        const after = await read();
        if (!isDeepStrictEqual(before, after)) changes[store.name] = { before, after };
      }
      expect(answers).toEqual(
        Object.fromEntries(stores.map((store) => [store.name, input.expected])),
      );
      expect(changes, "stores whose content changed").toEqual({});
    };

    it.each(badBodies)("422 for $name, the same on every store", check);
    it.each(badKeyIds)("404 for $name, the same on every store", check);
    it.each(badMetadata)("refuses $name, the same on every store", check);
    it.each(badCursors)("422 for $name, the same on every store", check);
    it.each(badSubjects)("401 for $name, the same on every store", check);

    it("stores a trimmed name and a 255-character sub the same way everywhere", async () => {
      const sub = `s${"u".repeat(254)}`;
      const token = await tokenFor(sub);
      const records: Record<string, unknown> = {};
      for (const store of stores) {
        const created = await answerOf(
          await store.keyward.handle(
            send("POST", "", token, createBody({ name: `  ${"🔑".repeat(100)}\t` })),
          ),
        );
        expect(created.status, store.name).toBe(201);
        const listed = await answerOf(await store.keyward.handle(send("GET", "", token)));
        const [record] = (listed.body as { data: Record<string, unknown>[] }).data;
        records[store.name] = {
          name: record?.name,
          scopes: record?.scopes,
          status: record?.status,
        };
      }
      const expected = { name: "🔑".repeat(100), scopes: ["profile:read"], status: "active" };
      expect(records).toEqual(Object.fromEntries(stores.map((store) => [store.name, expected])));
    });
  });
});
