/**
 * withHold on the memory store: a stream that settles what the client took, an abort that pays
 * for what was sent (or nothing, with onAbort: "release"), a handler's 5xx that gives the hold back,
 * a refused key that holds nothing, and a malformed `reserve` answer refused with nothing held.
 */
import { holdFixture } from "@keyward/testing";
import { describe, expect, it } from "vitest";
import { settlingStream, withHold } from "../src/index.js";

async function setup() {
  const { keyward, key: secret, credits } = await holdFixture();
  const request = (body: unknown, key = secret) =>
    new Request("http://local/api/v1/completions", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  return { keyward, credits, request };
}

const chunks = (count: number) =>
  (async function* () {
    for (let i = 0; i < count; i++) yield new TextEncoder().encode(`data: ${i}\n\n`);
  })();

describe("withHold (Fetch)", () => {
  const handlerOf = (keyward: Awaited<ReturnType<typeof setup>>["keyward"], onAbort?: "release") =>
    withHold(
      keyward,
      {
        scopes: ["completions:write"],
        route: "/api/v1/completions",
        reserve: async (request) => (await request.clone().json()).max_tokens,
      },
      async (request, _principal, hold) => {
        const { use, fail } = await request.json();
        if (fail) return new Response("upstream broke", { status: 502 });
        const body = settlingStream(hold, chunks(use), onAbort ? { onAbort } : {});
        return new Response(body, { headers: { "content-type": "text/event-stream" } });
      },
    );

  it("settles what the stream delivered and gives back the rest", async () => {
    const { keyward, credits, request } = await setup();
    const response = await handlerOf(keyward)(request({ max_tokens: 100, use: 7 }));
    expect(response.status).toBe(200);
    expect(response.headers.get("X-RateLimit-Limit")).not.toBeNull();
    const text = await response.text();
    expect(text.match(/^data: /gm)).toHaveLength(7);
    await expect.poll(credits).toBe(993);
  });

  it("a client that aborts after 3 chunks pays for 3; with onAbort release, for none", async () => {
    for (const [onAbort, expected] of [
      [undefined, 997],
      ["release", 1000],
    ] as const) {
      const { keyward, credits, request } = await setup();
      const response = await handlerOf(keyward, onAbort)(request({ max_tokens: 100, use: 50 }));
      const reader = response.body!.getReader();
      for (let i = 0; i < 3; i++) await reader.read();
      await reader.cancel();
      await expect.poll(credits).toBe(expected);
    }
  });

  it("a 5xx from the handler gives the hold back whole; a refused key holds nothing", async () => {
    const { keyward, credits, request } = await setup();
    const failed = await handlerOf(keyward)(request({ max_tokens: 100, use: 5, fail: true }));
    expect(failed.status).toBe(502);
    expect(await credits()).toBe(1000);
    const refused = await handlerOf(keyward)(request({ max_tokens: 100, use: 5 }, "kw_nope"));
    expect(refused.status).toBe(401);
    expect(await credits()).toBe(1000);
    const tooMuch = await handlerOf(keyward)(request({ max_tokens: 5000, use: 5 }));
    expect(tooMuch.status).toBe(429);
    expect(await credits()).toBe(1000);
  });

  it("a `reserve` that answers no whole number is a clear error, and nothing is held", async () => {
    const { keyward, credits, request } = await setup();
    for (const bad of [-1, 2.5, "9"]) {
      await expect(handlerOf(keyward)(request({ max_tokens: bad, use: 1 }))).rejects.toThrow(
        /reserve's `cost` must be a whole number ≥ 0/,
      );
    }
    expect(await credits()).toBe(1000);
  });
});
