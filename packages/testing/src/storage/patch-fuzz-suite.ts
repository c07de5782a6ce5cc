import { createKeyward, type KeyStore, type KeywardStore } from "@keyward/core";
import { events } from "@keyward/core/events";
import { lifecycle } from "@keyward/core/lifecycle";
import { permissions } from "@keyward/core/permissions";
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { uniqueId } from "./fixtures.js";
import { openStores } from "./open-stores.js";
import type { StorageSuiteOptions } from "./options.js";

const jwtSecret = "patch-fuzz-secret-of-at-least-32-bytes";
const scopes = {
  "profile:read": "Read profiles",
  "profile:write": "Edit profiles",
  "profile:admin": "Administer profiles",
};
// Far out of reach: every fuzzed request must reach the update, not a 429.
const tiers = { free: { rateLimit: { limit: 1_000_000_000, window: "1m" } } };

/** How many bodies each store is sent; the seed is printed with any failure, to replay it. */
const requests = 150;

/** Answers a fuzzed PATCH may get; anything else (a 5xx above all) is a bug. */
const expectedStatuses = new Set([200, 400, 409, 412, 413, 415, 422]);

/**
 * PATCH bodies generated at random (with a printed seed) and sent through `createKeyward` on the
 * store under test: known fields with wrong, extreme or store-hostile values (NUL, lone surrogates,
 * deep nesting, huge numbers), `resources` (kinds named like inherited properties, hostile ids),
 * fields an update does not have, `limits`, bodies that are not JSON
 * objects or not JSON at all, and `If-Match` headers current, stale, weak, foreign or malformed.
 * Whatever arrives, the answer is never a 5xx; a 200 wrote exactly the record it answered with and
 * widened no scope; any other answer changed nothing (the record's version included).
 */
export function patchFuzzSuite<S extends KeywardStore>(options: StorageSuiteOptions<S>): void {
  describe("PATCH fuzz", () => {
    const open = openStores(options);

    it(`answers ${requests} random PATCH bodies without a 5xx, changing only what a 200 says`, async () => {
      const store = await open();
      const seed = Number(process.env.KEYWARD_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
      const random = seededRandom(seed);
      const keyward = createKeyward({
        store,
        scopes,
        tiers,
        jwt: { secret: jwtSecret },
        features: [
          lifecycle(),
          permissions(),
          ...(store.events ? [events({ pruneIntervalMs: false })] : []),
        ],
        logger: { error() {}, warn() {} },
      });
      try {
        const ownerId = uniqueId("fuzz");
        const created = await keyward.keys.create({
          ownerId,
          accountTier: "free",
          name: "fuzzed",
          scopes: Object.keys(scopes),
          tier: "free",
          // Limited in kinds whose names every object inherits too, so that a PATCH's
          // resources are checked against them (narrowing only).
          resources: { profile: ["alice", "bob"], constructor: ["c"], toString: [] },
        });
        const token = await new SignJWT({ tier: "free" })
          .setProtectedHeader({ alg: "HS256" })
          .setSubject(ownerId)
          .setIssuedAt()
          .setExpirationTime("10m")
          .sign(new TextEncoder().encode(jwtSecret));
        const keys: KeyStore = store.keys;
        const tags: string[] = [];

        for (let i = 0; i < requests; i++) {
          const before = (await keys.findById(created.id))!;
          const body = patchBody(random);
          const ifMatch = ifMatchHeader(random, created.id, before.version, tags);
          const response = await keyward.handle(
            new Request(`http://fuzz.test/api/v1/api-keys/${created.id}`, {
              method: "PATCH",
              headers: {
                authorization: `Bearer ${token}`,
                "content-type": "application/json",
                ...(ifMatch === undefined ? {} : { "if-match": ifMatch }),
              },
              body,
            }),
          );
          const text = await response.text();
          const context = `seed ${seed}, request ${i}: PATCH ${body.slice(0, 300)} (If-Match ${ifMatch}) → ${response.status} ${text.slice(0, 300)}`;
          expect(expectedStatuses.has(response.status), context).toBe(true);
          const after = (await keys.findById(created.id))!;
          if (response.status === 200) {
            const record = JSON.parse(text) as { name: string; scopes: string[] };
            expect(after.version, context).toBe(before.version + 1);
            expect(record.scopes, context).toEqual(after.scopes);
            expect(record.name, context).toBe(after.name);
            expect(
              after.scopes.every((scope) => before.scopes.includes(scope)),
              context,
            ).toBe(true);
            const tag = response.headers.get("etag");
            expect(tag, context).toBe(`"${created.id}.${after.version}"`);
            tags.push(tag!);
          } else {
            expect(after, context).toEqual(before);
          }
        }
      } finally {
        await keyward.close();
      }
    }, 120_000);
  });
}

type Random = () => number;

/** mulberry32: a small seeded generator, so a failure can be replayed from its seed. */
function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const pick = <T>(random: Random, items: readonly T[]): T =>
  items[Math.floor(random() * items.length)]!;

/** Strings a store or a validator may trip on. */
const hostileStrings = [
  "",
  " ",
  "renamed",
  "a\u0000b",
  "\ud800",
  "x\udfffy",
  "\u202eevil",
  "名前🔑",
  "x".repeat(300),
  "'; DROP TABLE keys; --",
  "{{}}",
  "\\u0000",
  "__proto__",
];
const hostileNumbers = [0, -0, 1, -1, 1.5, 2 ** 53 + 1, 1e308, -1e308, Number.MIN_VALUE];
const fieldNames = [
  "name",
  "scopes",
  "metadata",
  "enabled",
  "allowedIps",
  "resources",
  "limits",
  "tier",
  "organizationId",
  "expiresAt",
  "__proto__",
  "constructor",
  "",
  "Name",
  "scopes ",
];

function jsonValue(random: Random, depth: number): unknown {
  const roll = random();
  if (depth > 3 || roll < 0.15) return pick(random, [null, true, false]);
  if (roll < 0.35) return pick(random, hostileStrings);
  if (roll < 0.5) return pick(random, hostileNumbers);
  if (roll < 0.7) {
    return Array.from({ length: Math.floor(random() * 4) }, () => jsonValue(random, depth + 1));
  }
  const object: Record<string, unknown> = {};
  for (let i = Math.floor(random() * 4); i > 0; i--) {
    object[pick(random, [...hostileStrings, "team", "a"])] = jsonValue(random, depth + 1);
  }
  return object;
}

/** A plausible value for a known field, often valid, sometimes not. */
function fieldValue(random: Random, field: string): unknown {
  if (random() < 0.3) return jsonValue(random, 0);
  switch (field) {
    case "name":
      return pick(random, hostileStrings);
    case "scopes": {
      const pool = [...Object.keys(scopes), "no:such:scope", "profile:read"];
      return Array.from({ length: Math.floor(random() * 4) }, () => pick(random, pool));
    }
    case "metadata":
      return random() < 0.2
        ? null
        : { note: pick(random, hostileStrings), n: jsonValue(random, 2) };
    case "enabled":
      return random() < 0.8 ? random() < 0.5 : "true";
    case "allowedIps":
      return random() < 0.2
        ? null
        : Array.from({ length: 1 + Math.floor(random() * 3) }, () =>
            pick(random, ["203.0.113.7", "2001:db8::/32", "::ffff:192.0.2.1", "10.0.0.0/33", "x"]),
          );
    case "limits":
      return { credits: { remaining: pick(random, hostileNumbers) } };
    case "resources": {
      if (random() < 0.2) return null;
      const kinds = ["profile", "constructor", "toString", "valueOf", "hasOwnProperty", "team"];
      const resources: Record<string, unknown> = {};
      for (let i = Math.floor(random() * 4); i >= 0; i--) {
        resources[pick(random, kinds)] =
          random() < 0.85
            ? Array.from({ length: Math.floor(random() * 3) }, () =>
                pick(random, ["alice", "bob", "c", ...hostileStrings]),
              )
            : jsonValue(random, 2);
      }
      return resources;
    }
    default:
      return jsonValue(random, 1);
  }
}

/** A request body as sent: usually a JSON object of fields, sometimes anything else. */
function patchBody(random: Random): string {
  const roll = random();
  if (roll < 0.05) return pick(random, ["", "{", "nul", '{"name": "x",}', "\u0000"]);
  if (roll < 0.1) return JSON.stringify(jsonValue(random, 0));
  if (roll < 0.12) return `${"[".repeat(5_000)}${"]".repeat(5_000)}`;
  const fields: Record<string, unknown> = {};
  for (let i = 1 + Math.floor(random() * 3); i > 0; i--) {
    const field = random() < 0.75 ? pick(random, fieldNames.slice(0, 6)) : pick(random, fieldNames);
    // Set as an own property even for "__proto__", as JSON.parse would make it.
    Object.defineProperty(fields, field, {
      value: fieldValue(random, field),
      enumerable: true,
      configurable: true,
      writable: true,
    });
  }
  return JSON.stringify(fields);
}

/** No `If-Match` most of the time; otherwise a current, stale, weak, foreign or malformed one. */
function ifMatchHeader(
  random: Random,
  keyId: string,
  version: number,
  seen: readonly string[],
): string | undefined {
  const roll = random();
  if (roll < 0.5) return undefined;
  if (roll < 0.65) return `"${keyId}.${version}"`;
  if (roll < 0.75 && seen.length > 0) return pick(random, seen);
  return pick(random, [
    "*",
    `W/"${keyId}.${version}"`,
    `"key_000000000000000000000000.${version}"`,
    `"${keyId}.0"`,
    `"${keyId}.99999999999999999999"`,
    "garbage",
    `"${keyId}.${version}", "other"`,
    '"'.repeat(100),
  ]);
}
