import { describe, expect, expectTypeOf, it } from "vitest";
import { createKeyward, type KeywardFeature, memoryStore } from "../index.js";

const base = {
  scopes: { "profile:read": "Read profiles" },
  tiers: { free: { rateLimit: { limit: 60, window: "1m" } } },
  jwt: { secret: "feature-interface-test-secret-32-bytes!!" },
  logger: false,
} as const;

/** A feature with an API and a route of its own, and a record of what happened to it. */
function pingFeature(log: string[] = []) {
  return {
    name: "ping",
    install: ({ basePath }) => ({
      routes: [{ subpath: "/ping", handle: async () => new Response(`pong from ${basePath}`) }],
      api: { count: () => log.length },
      close: async () => {
        log.push("closed");
      },
    }),
  } satisfies KeywardFeature<"ping", { count(): number }>;
}

describe("features: the interface a feature module adds to the kernel through", () => {
  it("puts each feature's API on the instance, typed from the list", async () => {
    const log: string[] = [];
    const keyward = createKeyward({ store: memoryStore(), ...base, features: [pingFeature(log)] });
    expectTypeOf(keyward.ping.count).toEqualTypeOf<() => number>();
    expect(keyward.ping.count()).toBe(0);
    const plain = createKeyward({ store: memoryStore(), ...base });
    // @ts-expect-error: not listed, not there
    expect(plain.ping).toBeUndefined();
    await keyward.close();
    expect(log).toEqual(["closed"]);
  });

  it("answers a feature's route before the session checks", async () => {
    const keyward = createKeyward({ store: memoryStore(), ...base, features: [pingFeature()] });
    const reply = await keyward.handle(new Request("http://host.test/api/v1/api-keys/ping"));
    expect(reply.status).toBe(200);
    expect(await reply.text()).toBe("pong from /api/v1/api-keys");
    // Errors a route throws become the usual error bodies.
    const failing: KeywardFeature<"failing"> = {
      name: "failing",
      install: () => ({
        routes: [
          {
            subpath: "/fail",
            handle: async () => {
              throw new Error("database down");
            },
          },
        ],
      }),
    };
    const broken = createKeyward({ store: memoryStore(), ...base, features: [failing] });
    const failed = await broken.handle(new Request("http://host.test/api/v1/api-keys/fail"));
    expect(failed.status).toBe(500);
    expect(await failed.json()).toEqual({ detail: "Internal server error", code: "internal" });
  });

  it("refuses at start what cannot work: a non-feature, a name twice, a missing store part, a taken route", () => {
    const make = (features: unknown) =>
      createKeyward({ store: memoryStore(), ...base, features: features as never });
    expect(() => make("ping")).toThrow(/`features` must be an array/);
    expect(() => make([pingFeature])).toThrow(
      /`features\[0\]` is not a feature .* call the feature's function/,
    );
    expect(() => make([pingFeature(), pingFeature()])).toThrow(
      /the feature `ping` is listed twice/,
    );
    const needy: KeywardFeature<"needy"> = {
      name: "needy",
      requires: [{ has: () => false, missing: "a store that keeps events (`events`)" }],
      install: () => ({}),
    };
    expect(() => make([needy])).toThrow(
      "Keyward: the feature `needy` needs a store that keeps events (`events`)",
    );
    const squatter: KeywardFeature<"squatter"> = {
      name: "squatter",
      install: () => ({
        routes: [{ subpath: "/scopes", handle: async () => new Response("mine") }],
      }),
    };
    expect(() => make([squatter])).toThrow(/`squatter` serves \/scopes, which is already taken/);
  });
});
