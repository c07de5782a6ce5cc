/**
 * requireHold on Express 5 over a real socket: the response's end settles what the handler counted,
 * a client that goes away after 3 chunks pays for 3 (or nothing with onAbort: "release"), a 5xx
 * gives the hold back, a refused key holds nothing.
 */
import { request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { holdFixture } from "@keyward/testing";
import express from "express";
import { describe, expect, it } from "vitest";
import { requireHold } from "../src/index.js";

async function setup(onAbort?: "release") {
  const { keyward, key: secret, credits } = await holdFixture();
  const app = express();
  app.post(
    "/api/v1/completions",
    express.json(),
    requireHold(keyward, {
      scopes: ["completions:write"],
      reserve: (req) => req.body.max_tokens,
      ...(onAbort ? { onAbort } : {}),
    }),
    async (req, res) => {
      const { use, fail, hang } = req.body;
      if (fail) {
        res.status(503).send("upstream down");
        return;
      }
      res.setHeader("content-type", "text/event-stream");
      for (let i = 0; i < use; i++) {
        res.write(`data: ${i}\n\n`);
        req.keywardHold!.sent(1);
      }
      // Waits for the client to go away instead of ending.
      if (hang) return;
      res.end();
    },
  );
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const port = (server.address() as AddressInfo).port;
  const post = (body: unknown, key = secret) =>
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
            // The client goes away once it has three chunks of a hanging stream.
            if ((body as { hang?: boolean }).hang && (text.match(/data: /g) ?? []).length >= 3) {
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
  return { credits, post, close: () => new Promise((resolve) => server.close(resolve)) };
}

describe("requireHold (Express)", () => {
  it("settles what the response counted once it ends", async () => {
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
