import Fastify from "fastify";
import { expect, it } from "vitest";
import { sendReply } from "./send-reply.js";

it("sends the status, headers and body, each Set-Cookie on its own line", async () => {
  const app = Fastify();
  app.get("/", async (_request, reply) => {
    reply.header("x-set-earlier", "kept");
    const headers = new Headers({ "content-type": "application/json", "x-ratelimit-limit": "60" });
    headers.append("set-cookie", "a=1; Path=/");
    headers.append("set-cookie", "b=2; Expires=Wed, 21 Oct 2026 07:28:00 GMT");
    return sendReply(reply, new Response('{"detail":"Gone"}', { status: 410, headers }));
  });
  const reply = await app.inject({ method: "GET", url: "/" });
  expect(reply.statusCode).toBe(410);
  expect(reply.body).toBe('{"detail":"Gone"}');
  expect(reply.headers["content-type"]).toBe("application/json");
  expect(reply.headers["x-ratelimit-limit"]).toBe("60");
  expect(reply.headers["x-set-earlier"]).toBe("kept");
  expect(reply.headers["set-cookie"]).toEqual([
    "a=1; Path=/",
    "b=2; Expires=Wed, 21 Oct 2026 07:28:00 GMT",
  ]);
  await app.close();
});

it("sends an empty body for a response without one", async () => {
  const app = Fastify();
  app.get("/", async (_request, reply) => sendReply(reply, new Response(null, { status: 204 })));
  const reply = await app.inject({ method: "GET", url: "/" });
  expect(reply.statusCode).toBe(204);
  expect(reply.body).toBe("");
  await app.close();
});
