/**
 * What `createKeyward` refuses at start, with the option's name and the fix, and what it reports
 * while running: the configuration mistakes and silent failures found in issue 16.
 */
import { SignJWT } from "jose";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { KeywardLogger } from "../logging/logger.js";
import { memoryStore } from "../memory/memory-store.js";
import type { KeywardConfig } from "./config.js";
import { createKeyward } from "./create-keyward.js";

const secret = "create-keyward-test-secret-of-32-bytes";
const base = (): KeywardConfig => ({
  store: memoryStore(),
  scopes: { "profile:read": "Read profiles" },
  tiers: { free: { rateLimit: { limit: 5, window: "1m" } } },
  jwt: { secret },
  logger: false,
});

function recordingLogger() {
  const lines: { level: "error" | "warn"; message: string; cause?: unknown }[] = [];
  const logger: KeywardLogger = {
    error: (message, cause) => lines.push({ level: "error", message, cause }),
    warn: (message, detail) => lines.push({ level: "warn", message, cause: detail }),
  };
  return { lines, logger };
}

/** A Keyward logging into `lines`, and one key of alice's to verify with. */
async function recordingKeywardWithKey() {
  const { lines, logger } = recordingLogger();
  const keyward = createKeyward({ ...base(), logger });
  const { key } = await keyward.keys.create({
    ownerId: "alice",
    accountTier: "free",
    name: "k",
    scopes: ["profile:read"],
    tier: "free",
  });
  return { lines, keyward, key };
}

afterEach(() => vi.restoreAllMocks());

describe("createKeyward refuses a wrong configuration at start", () => {
  it.each([
    [
      "scopes given as an array",
      { scopes: ["profile:read"] as unknown as Record<string, string> },
      /`scopes` must be an object keyed by name, like \{ "profile:read": "Read profiles" \}; got an array/,
    ],
    [
      "tiers given as an array",
      { tiers: [] as unknown as KeywardConfig["tiers"] },
      /`tiers` must be an object keyed by name/,
    ],
    [
      "a store without rate limits",
      { store: { keys: memoryStore().keys, usage: memoryStore().usage } as never },
      /`store` must provide `keys`, `usage` and `rateLimits`; missing: rateLimits/,
    ],
    [
      "rate limits that count usage beside a usage store that cannot read it",
      {
        store: {
          ...memoryStore(),
          rateLimits: {
            recordsUsage: true,
            usageStore: memoryStore().usage,
            consume: memoryStore().rateLimits.consume,
          },
        },
      },
      /`store.rateLimits` counts usage inside its own call.*recordsUsage: false/,
    ],
    [
      "a 1-byte pepper",
      { keys: { pepper: "p" } },
      /`keys.pepper` must be at least 32 bytes, got 1/,
    ],
    [
      "an empty pepper (an unset variable)",
      { keys: { pepper: "" } },
      /got 0 \(is its environment variable set\?\)/,
    ],
    [
      "a pepper that is a number",
      { keys: { pepper: 42 as never } },
      /`keys.pepper` must be a string or a Uint8Array/,
    ],
    [
      "an option that is not the kernel's (one that became a feature)",
      { keyUpdates: true } as never,
      /`keyUpdates` is not an option of createKeyward, whose options are features, store, .*docs\/migrating\.md/,
    ],
    [
      "options that are not the kernel's (a typo, one that moved into a group)",
      { scope: {}, basePath: "/keys" } as never,
      /`scope`, `basePath` are not options of createKeyward/,
    ],
    [
      "accountTier that is not a function",
      { accountTier: "tier" as never },
      /`accountTier` must be a function/,
    ],
    ["a logger without warn", { logger: { error() {} } as never }, /`logger` must have/],
    ["a negative usage interval", { usage: { flushIntervalMs: -1 } }, /`usage.flushIntervalMs`/],
  ])("%s", (_, override, message) => {
    expect(() => createKeyward({ ...base(), ...override })).toThrow(message);
  });

  it("says which JWT options were given when more than one was", () => {
    expect(() =>
      createKeyward({ ...base(), jwt: { secret, jwksUrl: "https://a.example/jwks" } as never }),
    ).toThrow(/got secret and jwksUrl/);
  });

  it("accepts a 32-byte pepper", () => {
    expect(() => createKeyward({ ...base(), keys: { pepper: "p".repeat(32) } })).not.toThrow();
  });
});

describe("assertScopes", () => {
  it("names every scope a guard requires that is not configured", () => {
    const keyward = createKeyward(base());
    expect(() => keyward.assertScopes(["profile:read"])).not.toThrow();
    expect(() => keyward.assertScopes(["profile:read", "profile:raed", "x"])).toThrow(
      'Keyward: "profile:raed", "x" are not configured scopes; configured: profile:read. Add it to `scopes` or fix the guard.',
    );
  });
});

describe("createKeyward warns about what works but is probably a mistake", () => {
  it("warns once at start when no JWT is configured, and not with jwt: false", () => {
    const { lines, logger } = recordingLogger();
    createKeyward({ ...base(), jwt: undefined, logger });
    expect(lines).toEqual([
      {
        level: "warn",
        message: expect.stringContaining("no `jwt` or `session` is configured"),
        cause: undefined,
      },
    ]);
    const quiet = recordingLogger();
    createKeyward({ ...base(), jwt: false, logger: quiet.logger });
    expect(quiet.lines).toEqual([]);
  });

  it("warns once for a session tier that is not configured, naming the tiers", async () => {
    const { lines, logger } = recordingLogger();
    const keyward = createKeyward({ ...base(), logger });
    const token = await new SignJWT({ tier: "gold" })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("alice")
      .sign(new TextEncoder().encode(secret));
    for (let i = 0; i < 3; i++) expect((await keyward.verify(`Bearer ${token}`)).ok).toBe(true);
    expect(lines.map((line) => line.message)).toEqual([
      'a session\'s account tier "gold" is not a configured tier (free), so the account is treated as the lowest, "free". Configure that tier, or map claims to tiers with `accountTier(claims)`.',
    ]);
  });

  it("warns once for a route requiring a scope that is not configured", async () => {
    const { lines, keyward, key } = await recordingKeywardWithKey();
    for (let i = 0; i < 2; i++) {
      const result = await keyward.verify(`Bearer ${key}`, {
        scopes: ["profile:raed"],
        route: "GET /p",
      });
      expect(!result.ok && result.error.status).toBe(403);
    }
    expect(lines.map((line) => line.message)).toEqual([
      'a route requires "profile:raed", which is not a configured scope, so no API key can call it. Configured scopes: profile:read.',
    ]);
  });

  it("warns once when an API key is verified without a route", async () => {
    const { lines, keyward, key } = await recordingKeywardWithKey();
    await keyward.verify(`Bearer ${key}`);
    await keyward.verify(`Bearer ${key}`);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.message).toMatch(/without `route`.*"ANY \*"/);
  });
});

describe("failures are logged by default", () => {
  const failingStore = () => {
    const store = memoryStore();
    const down = () => Promise.reject(new Error("connection refused"));
    // No `peek` either: a store that can answer from memory has not failed.
    return {
      ...store,
      keys: { ...store.keys, peek: undefined, findByHash: down, listByOwner: down },
    };
  };

  it("logs a store failure on the endpoints and on verification to console.error, one line each", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const keyward = createKeyward({ ...base(), store: failingStore(), logger: undefined });
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("alice")
      .sign(new TextEncoder().encode(secret));
    const listed = await keyward.handle(
      new Request("http://host/api/v1/api-keys?x=1", {
        headers: { authorization: `Bearer ${token}` },
      }),
    );
    expect(listed.status).toBe(500);
    const key = `sk_live_${"a".repeat(30)}`;
    const verified = await keyward.verify(`Bearer ${key}AAAAAA`, { route: "GET /p" });
    expect(verified.ok).toBe(false);
    const logged = error.mock.calls.map((call) => call.join(" "));
    expect(logged[0]).toBe("keyward: GET /api/v1/api-keys failed (500): Error: connection refused");
    for (const line of logged) {
      expect(line).not.toContain("\n");
      expect(line).not.toContain(token);
    }
  });

  it("sends failures to a logger of one's own and the onError hook, and nowhere with logger: false", async () => {
    const { lines, logger } = recordingLogger();
    const hook = vi.fn();
    const keyward = createKeyward({ ...base(), store: failingStore(), logger, onError: hook });
    const { key } = await createKeyward({ ...base() }).keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "k",
      scopes: ["profile:read"],
      tier: "free",
    });
    await keyward.verify(`Bearer ${key}`, { route: "GET /p" });
    expect(lines).toEqual([
      { level: "error", message: "verifying a request failed (500)", cause: expect.any(Error) },
    ]);
    expect(hook).toHaveBeenCalledOnce();
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const silent = createKeyward({ ...base(), store: failingStore(), logger: false });
    await silent.verify(`Bearer ${key}`, { route: "GET /p" });
    expect(error).not.toHaveBeenCalled();
  });
});
