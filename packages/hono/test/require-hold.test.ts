/**
 * requireHold on Hono (app.request, no server): a settling stream pays what the client took, an
 * abort what was sent, a 5xx or a throw gives the hold back, a refused key holds nothing, a
 * malformed `reserve` answer is a clear error with nothing held.
 */
import { holdFixture } from "@keyward/testing";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { type KeywardHoldEnv, requireHold, settlingStream } from "../src/index.js";

async function setup() {
  const { keyward, key: secret, credits } = await holdFixture();
  const app = new Hono<KeywardHoldEnv>();
  app.post(
    "/api/v1/completions",
    requireHold(keyward, {
      scopes: ["completions:write"],
      reserve: async (c) => (await c.req.json()).max_tokens,
    }),
    async (c) => {
      const { use, fail, crash } = await c.req.json();
      if (crash) throw new Error("handler broke");
      if (fail) return c.text("upstream down", 503);
      const chunks = (async function* () {
        for (let i = 0; i < use; i++) yield new TextEncoder().encode(`data: ${i}\n\n`);
      })();
      return new Response(settlingStream(c.get("keywardHold"), chunks), {
        headers: { "content-type": "text/event-stream" },
      });
    },
  );
  const post = (body: unknown, key = secret) =>
    app.request("/api/v1/completions", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  return { credits, post };
}

describe("requireHold (Hono)", () => {
  it("settles what the stream delivered; an abort after 2 chunks pays for 2", async () => {
    const { credits, post } = await setup();
    const whole = await post({ max_tokens: 100, use: 5 });
    expect((await whole.text()).match(/data: /g)).toHaveLength(5);
    expect(whole.headers.get("X-RateLimit-Limit")).not.toBeNull();
    await expect.poll(credits).toBe(995);
    const aborted = await post({ max_tokens: 100, use: 40 });
    const reader = aborted.body!.getReader();
    await reader.read();
    await reader.read();
    await reader.cancel();
    await expect.poll(credits).toBe(993);
  });

  it("a 5xx or a throw gives the hold back; a refused key and bad input hold nothing", async () => {
    const { credits, post } = await setup();
    expect((await post({ max_tokens: 100, use: 1, fail: true })).status).toBe(503);
    expect(await credits()).toBe(1000);
    expect((await post({ max_tokens: 100, use: 1, crash: true })).status).toBe(500);
    expect(await credits()).toBe(1000);
    expect((await post({ max_tokens: 100, use: 1 }, "kw_nope")).status).toBe(401);
    expect((await post({ max_tokens: 1.5, use: 1 })).status).toBe(500);
    expect(await credits()).toBe(1000);
  });
});
