/**
 * Random input, no 5xx, on every store: create and PATCH bodies (resources too), page cursors and
 * page sizes on the key list and the audit log, signed secret-scanning reports, reveals (sessions
 * signed in at any time, any key id) and import records (every field), generated from a seeded
 * generator biased
 * toward what breaks stores and parsers (NUL, lone surrogates, bidi controls, huge and negative
 * numbers, deep nesting, wrong types, long strings). Every answer must be below 500 and the same on
 * memory, PGlite, PostgreSQL and Redis; a case that fails prints its seed and input. Every store
 * reads one manual clock, which stands still during a case: a session is signed and checked at the
 * same instant on every store, so a sign-in near a limit (6 s ahead, 5 s allowed) is answered alike.
 */

import { manualClock } from "@keyward/core";
import { events } from "@keyward/core/events";
import { imports } from "@keyward/core/imports";
import { lifecycle } from "@keyward/core/lifecycle";
import { permissions } from "@keyward/core/permissions";
import { recoverable } from "@keyward/core/recoverable";
import { secretScanning } from "@keyward/core/secret-scanning";
import { type ScannerKeyServer, startScannerKeyServer } from "@keyward/testing";
import {
  DEMO_SCOPE_DESCRIPTIONS,
  DEMO_TIER_LIMITS,
  demoTiers,
} from "@keyward/testing/demo-contract";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeOnServer } from "../../../packages/postgres/test/support/databases.js";
import { redisAvailable } from "../../../packages/redis/test/support/local-redis.js";
import { type StoreUnderTest, storesUnderTest } from "./support/stores-under-test.js";

const jwtSecret = "fuzz-no-5xx-test-secret-of-32-bytes!!";
const basePath = "/api/v1/api-keys";
const casesPerTarget = Number(process.env.KEYWARD_FUZZ_CASES ?? 120);
const seed = Number(process.env.KEYWARD_FUZZ_SEED ?? 20261127);

/** mulberry32: small, seedable, good enough to pick inputs. */
function generator(start: number) {
  let state = start >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (below: number) => Math.floor(next() * below);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;

  const nasty = [
    "\u0000",
    "\ud800",
    "\udfff",
    "\u202e",
    "\u2066",
    "\n",
    "\u007f",
    "\ufeff",
    "🔑",
    "'",
    '"',
    "\\",
    "%00",
    "../",
    "{",
    "]",
  ];
  const text = (): string => {
    const length = pick([0, 1, 3, 12, 100, 300, 5_000]);
    let out = "";
    while (out.length < length)
      out += next() < 0.3 ? pick(nasty) : String.fromCharCode(0x20 + int(0x5f));
    return out;
  };
  const number = () =>
    pick([0, -1, 1, 1.5, -0, 2 ** 53, -(2 ** 53), 1e308, -1e308, 8.64e15, Number.MAX_SAFE_INTEGER]);
  const value = (depth: number): unknown => {
    const kind = int(depth > 6 ? 4 : 7);
    switch (kind) {
      case 0:
        return text();
      case 1:
        return number();
      case 2:
        return pick([true, false, null]);
      case 3:
        return pick([
          "profile:read",
          "profile:write",
          "free",
          "pro",
          "10.0.0.0/8",
          "::1",
          "2026-01-01T00:00:00Z",
        ]);
      case 4:
        return next() < 0.3 ? resources() : Array.from({ length: int(4) }, () => value(depth + 1));
      default: {
        const object: Record<string, unknown> = {};
        for (let i = int(4); i > 0; i--)
          object[next() < 0.5 ? text().slice(0, 20) : pick(fields)] = value(depth + 1);
        return object;
      }
    }
  };
  /** `resources`: kinds an object inherits as often as real ones, ids from the nasty text. */
  const resources = (): unknown => {
    const object: Record<string, unknown> = {};
    for (let i = int(4); i >= 0; i--) {
      const kind = pick([
        "profile",
        "constructor",
        "toString",
        "__proto__",
        "valueOf",
        text().slice(0, 10),
      ]);
      object[kind] =
        next() < 0.8
          ? Array.from({ length: int(4) }, () => (next() < 0.7 ? text().slice(0, 20) : value(5)))
          : value(5);
    }
    return object;
  };
  const fields = [
    "resources",
    "name",
    "metadata",
    "enabled",
    "scopes",
    "allowedIps",
    "tier",
    "organizationId",
    "expiresAt",
    "limits",
    "environment",
  ];
  /** JSON text: usually a serialized value, sometimes raw text a serializer would never produce. */
  const json = (): string => {
    const roll = next();
    if (roll < 0.1) return text();
    if (roll < 0.2)
      return `${"[".repeat(pick([10, 70, 5_000]))}1${"]".repeat(pick([0, 10, 5_000]))}`;
    if (roll < 0.3) return `{"metadata":{"a":"${pick(["\\u0000", "\\ud800", "\\udc00x"])}"}}`;
    const body: Record<string, unknown> = {};
    for (let i = 1 + int(4); i > 0; i--) body[pick(fields)] = value(1);
    return JSON.stringify(body);
  };
  const cursorText = (): string => {
    const roll = next();
    const raw =
      roll < 0.5
        ? `${pick(["1", "-9007199254740991", "1e999", "0x10", "", "9999999999999999"])}.${text().slice(0, 40)}`
        : text().slice(0, 60);
    if (next() < 0.7) {
      const bytes = new TextEncoder().encode(raw);
      return btoa(String.fromCharCode(...bytes))
        .replace(/\+/g, "-")
        .replace(/\//g, "_")
        .replace(/=+$/, "");
    }
    return raw;
  };
  /** An import record: every field, each well-formed or not. */
  const importRecord = (): unknown => {
    if (next() < 0.05) return value(2);
    const token =
      next() < 0.5
        ? `${pick(["ba_", "acme_", "sk_live_", "sk_test_", ""])}${text().slice(0, 60)}`
        : value(3);
    const record: Record<string, unknown> = {};
    const maybe = (field: string, make: () => unknown) => {
      if (next() < 0.6) record[field] = next() < 0.7 ? make() : value(3);
    };
    if (next() < 0.5) record.key = token;
    else
      record.hash = {
        value: next() < 0.6 ? "a".repeat(pick([64, 63, 43, 44])) : text().slice(0, 80),
        algorithm: pick(["sha256", "md5", value(4)]),
        encoding: pick(["hex", "base64url", "base64", "base32"]),
        ...(next() < 0.2 ? { pepper: text().slice(0, 10) } : {}),
      };
    record.owner =
      next() < 0.6
        ? pick(["alice", text().slice(0, 30)])
        : { type: pick(["user", "organization", "team"]), id: text().slice(0, 30) };
    record.tier = next() < 0.8 ? pick(["free", "pro", "enterprise"]) : value(4);
    maybe("accountTier", () => pick(["free", "pro", "enterprise", "gold"]));
    maybe("createdBy", () => text().slice(0, 300));
    maybe("name", () => text().slice(0, 120));
    maybe("scopes", () => [
      pick(["profile:read", "profile:write", "files:read"]),
      text().slice(0, 10),
    ]);
    for (const time of ["expiresAt", "createdAt", "lastUsedAt"]) {
      maybe(time, () =>
        pick([
          "2026-01-01T00:00:00Z",
          "9999-12-31T23:30:00-01:00",
          "+010000-01-01T00:00:00Z",
          "2099-01-01T00:00:00Z",
          null,
          "1969-12-31T23:59:59Z",
        ]),
      );
    }
    maybe("metadata", () => ({ [text().slice(0, 10)]: value(4) }));
    maybe("prefix", () => text().slice(0, 70));
    maybe("enabled", () => pick([true, false]));
    maybe("credits", () => ({
      remaining: number(),
      ...(next() < 0.5
        ? { refill: { amount: number(), period: pick(["day", "month", "week"]) } }
        : {}),
    }));
    return record;
  };
  return { next, int, pick, text, json, cursorText, value, importRecord, resources };
}

interface Context {
  token: string;
  keyId(store: string): string;
  sign(body: string): Promise<Record<string, string>>;
}

type FuzzedKeyward = StoreUnderTest["keyward"] & {
  imports?: {
    importKeys(records: readonly unknown[], options?: object): Promise<{ refused: unknown[] }>;
  };
};

/** A call that is not an HTTP request (an import): its status as an endpoint would answer it. */
type Call = (keyward: FuzzedKeyward) => Promise<number>;

/**
 * The stores' clock. It stands still during a case and is set to the wall time when one starts:
 * read from the wall, a session signed 6 s ahead (`iat` in whole seconds) was refused unless a
 * second ticked between signing and the reveal's check, and then it was revealed on that store
 * alone (seed 20878821: PostgreSQL 200, the others 403). Wall time, not a made-up one: Redis's rate
 * limits keep its server's time, and the other stores' windows stay in step with them.
 */
const clock = manualClock(Date.now());

/** A session whose sign-in (`iat`) may lie anywhere: long past, just now, in the future. */
const sessionSignedIn = (sub: string, issuedAtOffsetSeconds: number) => {
  const now = Math.floor(clock.now() / 1000);
  return new SignJWT({ sub, tier: "pro" })
    .setProtectedHeader({ alg: "HS256" })
    .setIssuedAt(now + issuedAtOffsetSeconds)
    .setExpirationTime(now + Math.max(issuedAtOffsetSeconds, 0) + 3600)
    .sign(new TextEncoder().encode(jwtSecret));
};

/** A query value: a URL carries bytes, so a lone surrogate arrives as U+FFFD whatever is sent. */
const q = (text: string) => encodeURIComponent(text.replace(/\p{Cs}/gu, "\ufffd"));

const jsonHeaders = (token: string) => ({
  authorization: `Bearer ${token}`,
  "content-type": "application/json",
});

/** Per target: a request made from the generator, the same for every store but for the key id. */
const targets: Record<
  string,
  (gen: ReturnType<typeof generator>, context: Context, keyId: string) => Promise<Request | Call>
> = {
  "create a key": async (gen, { token }) =>
    new Request(`http://keyward.test${basePath}`, {
      method: "POST",
      headers: jsonHeaders(token),
      body:
        gen.next() < 0.5
          ? gen.json()
          : JSON.stringify({
              name: "fuzzed",
              scopes: ["profile:read"],
              tier: "free",
              resources: gen.resources(),
            }),
    }),
  "reveal a key": async (gen, { token }, keyId) => {
    const session =
      gen.next() < 0.3
        ? token
        : await sessionSignedIn(
            gen.next() < 0.7 ? `fuzz-owner` : gen.text().slice(0, 40) || "x",
            gen.pick([-100_000, -301, -5, 0, 4, 6, 3600, 10 ** 9]),
          );
    const id = gen.next() < 0.6 ? keyId : q(gen.text().slice(0, 40));
    return new Request(`http://keyward.test${basePath}/${id}/reveal`, {
      method: "POST",
      headers: { authorization: `Bearer ${session}` },
    });
  },
  "import records": async (gen) => {
    const records = Array.from({ length: 1 + gen.int(3) }, () => gen.importRecord());
    const options = {
      dryRun: gen.next() < 0.5,
      skipUnverifiable: gen.next() < 0.3,
      actor: gen.pick(["operator", "system"]),
    };
    return async (keyward) => {
      try {
        const report = await keyward.imports!.importKeys(records, options);
        return report.refused.length > 0 ? 422 : 200;
      } catch {
        return 500;
      }
    };
  },
  "PATCH a key": async (gen, { token }, keyId) =>
    new Request(`http://keyward.test${basePath}/${keyId}`, {
      method: "PATCH",
      headers: jsonHeaders(token),
      body: gen.json(),
    }),
  "list keys with a cursor": async (gen, { token }) =>
    new Request(
      `http://keyward.test${basePath}?limit=${q(gen.pick(["1", "0", "-1", "1001", "1e3", "abc", "", "2"]))}&cursor=${q(gen.cursorText())}`,
      { headers: { authorization: `Bearer ${token}` } },
    ),
  "list a key's events": async (gen, { token }, keyId) => {
    const query = [
      gen.next() < 0.8 ? `cursor=${q(gen.cursorText())}` : "",
      gen.next() < 0.5 ? `limit=${q(gen.pick(["1", "0", "5000", "x", "2"]))}` : "",
      gen.next() < 0.5 ? `types=${q(gen.text().slice(0, 30))}` : "",
      gen.next() < 0.3 ? `after=${q(gen.text().slice(0, 30))}` : "",
    ]
      .filter(Boolean)
      .join("&");
    return new Request(`http://keyward.test${basePath}/${keyId}/events?${query}`, {
      headers: { authorization: `Bearer ${token}` },
    });
  },
  "report leaked tokens (signed)": async (gen, { sign }, _keyId) => {
    const roll = gen.next();
    const body =
      roll < 0.3
        ? gen.json()
        : JSON.stringify(
            Array.from({ length: 1 + gen.int(3) }, () => ({
              token:
                gen.next() < 0.5 ? `sk_live_${gen.text().slice(0, 40)}` : gen.text().slice(0, 60),
              type: gen.next() < 0.8 ? "keyward_api_key" : gen.value(3),
              ...(gen.next() < 0.7 ? { url: gen.next() < 0.7 ? gen.text() : gen.value(3) } : {}),
              ...(gen.next() < 0.5 ? { source: gen.value(3) } : {}),
            })),
          );
    return new Request(`http://keyward.test${basePath}/secret-scanning`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(await sign(body)) },
      body,
    });
  },
};

describeOnServer("random input, no 5xx, on every store", () => {
  describe.skipIf(!redisAvailable)("memory, PGlite, PostgreSQL and Redis", () => {
    let stores: StoreUnderTest[] = [];
    let scanner: ScannerKeyServer;
    const keyIds = new Map<string, string>();
    let token: string;

    beforeAll(async () => {
      scanner = await startScannerKeyServer();
      stores = await storesUnderTest({
        scopes: DEMO_SCOPE_DESCRIPTIONS,
        tiers: demoTiers(DEMO_TIER_LIMITS),
        jwt: { secret: jwtSecret },
        clock,
        features: [
          lifecycle(),
          events(),
          secretScanning({ keysUrl: scanner.url, action: "report" }),
          permissions(),
          imports(),
          recoverable({ keyRing: { current: "k1", keys: { k1: btoa("k".repeat(32)) } } }),
        ],
        logger: false,
      });
      // The owner of the fuzzed key: a reveal's session signs in as it at random times.
      token = await sessionSignedIn("fuzz-owner", 0);
      for (const store of stores) {
        const created = await store.keyward.handle(
          new Request(`http://keyward.test${basePath}`, {
            method: "POST",
            headers: jsonHeaders(token),
            body: JSON.stringify({
              name: "fuzzed",
              scopes: ["profile:read", "profile:write"],
              tier: "free",
            }),
          }),
        );
        expect(created.status, store.name).toBe(201);
        keyIds.set(store.name, ((await created.json()) as { id: string }).id);
      }
    }, 60_000);

    afterAll(async () => {
      for (const store of stores) {
        await store.keyward.close();
        await store.close();
      }
      await scanner?.close();
    });

    for (const [name, build] of Object.entries(targets)) {
      it(`${name}: ${casesPerTarget} random requests, never a 5xx, the same status on every store`, async () => {
        const context: Context = {
          token,
          keyId: (store) => keyIds.get(store)!,
          sign: (body) => scanner.sign(body),
        };
        const failures: string[] = [];
        for (let n = 0; n < casesPerTarget; n++) {
          const caseSeed = seed + n * 7919 + name.length;
          clock.set(Date.now());
          const statuses: Record<string, number> = {};
          let shown = "";
          for (const store of stores) {
            // The same input for every store: a generator restarted from the case's seed.
            const request = await build(generator(caseSeed), context, keyIds.get(store.name)!);
            if (typeof request === "function") {
              shown ||= `import, case ${n}`;
              statuses[store.name] = await request(store.keyward as FuzzedKeyward);
              continue;
            }
            shown ||= `${request.method} ${new URL(request.url).search.slice(0, 200)} ${(await request.clone().text()).slice(0, 200)}`;
            const response = await store.keyward.handle(request);
            await response.arrayBuffer();
            statuses[store.name] = response.status;
          }
          const values = Object.values(statuses);
          if (values.some((status) => status >= 500) || new Set(values).size > 1) {
            failures.push(
              `seed ${caseSeed}: ${JSON.stringify(statuses)} for ${JSON.stringify(shown)}`,
            );
          }
        }
        expect(failures).toEqual([]);
      }, 180_000);
    }
  });
});
