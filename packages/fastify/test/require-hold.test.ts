/**
 * requireHold on Fastify over a real socket: the reply's end settles what the handler counted, a
 * client that goes away after 3 chunks pays for 3 (or nothing with onAbort: "release"), a 5xx gives
 * the hold back, a refused key holds nothing.
 */
import { request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { holdFixture } from "@keyward/testing";
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { requireHold } from "../src/index.js";

async function setup(onAbort?: "release") {
  const { keyward, key: secret, credits } = await holdFixture();
  const app = Fastify();
  app.post<{ Body: { max_tokens: number; use: number; fail?: boolean; hang?: boolean } }>(
    "/api/v1/completions",
    {
      preHandler: requireHold(keyward, {
        scopes: ["completions:write"],
        reserve: (request) => (request.body as { max_tokens: number }).max_tokens,
        ...(onAbort ? { onAbort } : {}),
      }),
    },
    async (request, reply) => {
      const { use, fail, hang } = request.body;
      if (fail) return reply.code(503).send("upstream down");
      const hold = request.keywardHold!;
      const chunks = async function* () {
        for (let i = 0; i < use; i++) {
          hold.sent(1);
          yield `data: ${i}\n\n`;
        }
        // Waits for the client to go away instead of ending.
        if (hang) await new Promise(() => {});
      };
      return reply.type("text/event-stream").send(Readable.from(chunks()));
    },
  );
  await app.listen({ port: 0, host: "127.0.0.1" });
  const port = (app.server.address() as AddressInfo).port;
  const post = (body: { hang?: boolean } & Record<string, unknown>, key = secret) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpRequest(
        {
          port,
          host: "127.0.0.1",
          method: "POST",
          path: "/api/v1/completions",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        },
        (res) => {
          let text = "";
          res.on("data", (chunk) => {
            text += chunk;
            if (body.hang && (text.match(/data: /g) ?? []).length >= 3) {
              req.destroy();
              resolve({ status: res.statusCode!, text });
            }
          });
          res.on("end", () => resolve({ status: res.statusCode!, text }));
        },
      );
      req.on("error", reject);
      req.end(JSON.stringify(body));
    });
  return { credits, post, close: () => app.close() };
}

describe("requireHold (Fastify)", () => {
  it("settles what the reply counted once it ends", async () => {
    const { credits, post, close } = await setup();
    const reply = await post({ max_tokens: 100, use: 6 });
    expect(reply.status).toBe(200);
    expect(reply.text.match(/data: /g)).toHaveLength(6);
    await expect.poll(credits).toBe(994);
    await close();
  });

  it("a client that goes away after 3 chunks pays for 3; with onAbort release, nothing", async () => {
    for (const [onAbort, expected] of [
      [undefined, 997],
      ["release", 1000],
    ] as const) {
      const { credits, post, close } = await setup(onAbort);
      await post({ max_tokens: 100, use: 3, hang: true });
      await expect.poll(credits).toBe(expected);
      await close();
    }
  });

  it("a 5xx gives the hold back; a refused key or too large a hold holds nothing", async () => {
    const { credits, post, close } = await setup();
    expect((await post({ max_tokens: 100, use: 1, fail: true })).status).toBe(503);
    await expect.poll(credits).toBe(1000);
    expect((await post({ max_tokens: 100, use: 1 }, "kw_nope")).status).toBe(401);
    expect((await post({ max_tokens: 5000, use: 1 })).status).toBe(429);
    expect(await credits()).toBe(1000);
    await close();
  });
});
