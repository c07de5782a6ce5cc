import Fastify from "fastify";
import { it, expect } from "vitest";
import { keywardPlugin } from "/work/main/packages/fastify/src/index.ts";
import { demoKeyward } from "/work/main/packages/fastify/test/demo.ts";
it("checks", async () => {
  const k = demoKeyward();
  const app = Fastify();
  await app.register(keywardPlugin, { keyward: k });
  let err: unknown;
  try { await app.register(keywardPlugin, { keyward: k }); } catch (e) { err = e; }
  console.log("double:", String(err));
  const app2 = Fastify();
  await app2.register(keywardPlugin, { keyward: k });
  app2.setNotFoundHandler(async (request) => ({ url: request.routeOptions.url ?? null }));
  const r = await app2.inject({ url: "/nope" });
  console.log("404:", r.statusCode, r.body);
  expect(1).toBe(1);
});
