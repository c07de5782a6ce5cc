/**
 * docs/getting-started-workers.md's Worker, as printed, in workerd: the guide's `src/index.ts`
 * block is bundled and run with a `JWT_SECRET` binding, then a session creates a key that reads a
 * profile through the guarded route. A guide that stopped running on Workers fails here.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { mintJwt } from "@keyward/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type RunningWorker, runInWorkerd } from "../src/workerd.js";

const guide = readFileSync(
  path.resolve(
    path.dirname(fileURLToPath(import.meta.url)),
    "../../../docs/getting-started-workers.md",
  ),
  "utf8",
);
const worker = /^```ts\n(\/\/ src\/index\.ts\n[\s\S]*?)^```$/m.exec(guide)?.[1];
const jwtSecret = "workers-guide-test-secret-of-at-least-32-bytes";
let running: RunningWorker;
let output = "";

beforeAll(async () => {
  expect(worker, "the guide's src/index.ts block").toBeDefined();
  running = await runInWorkerd({
    source: worker!,
    bindings: { JWT_SECRET: jwtSecret },
    fromSource: true,
    onOutput: (text) => {
      output += text;
    },
  });
});
afterAll(() => running?.stop());

it("creates a key with a session and reads a profile with it, in workerd", async () => {
  const session = `Bearer ${await mintJwt(jwtSecret, { sub: "alice", tier: "pro" })}`;
  const created = await fetch(`${running.origin}/api/v1/api-keys`, {
    method: "POST",
    headers: { authorization: session, "content-type": "application/json" },
    body: JSON.stringify({ name: "guide", scopes: ["profile:read"], tier: "free" }),
  });
  expect(created.status, output).toBe(201);
  const { key } = (await created.json()) as { key: string };
  const profile = await fetch(`${running.origin}/api/v1/profiles/bob`, {
    headers: { authorization: `Bearer ${key}` },
  });
  expect(profile.status).toBe(200);
  expect(await profile.json()).toEqual({ slug: "bob", viewer: "alice" });
  expect(profile.headers.get("x-ratelimit-limit")).toBe("60");
  const elsewhere = await fetch(`${running.origin}/nowhere`);
  expect(elsewhere.status).toBe(404);
});
