import { describe, expect, it } from "vitest";
import { loadDemoConfig } from "../src/config.js";
import { createDemoPage } from "../src/page/demo-page.js";

const request = (method: string, path: string, body?: unknown) =>
  new Request(`http://localhost${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
  });

describe("the demo page", () => {
  it("is on in development and off with NODE_ENV=production", () => {
    expect(loadDemoConfig({}).developmentMode).toBe(true);
    expect(loadDemoConfig({ NODE_ENV: "development" }).developmentMode).toBe(true);
    expect(loadDemoConfig({ NODE_ENV: "production" }).developmentMode).toBe(false);
  });

  it("answers nothing at all in production, so every path keeps its v0.1 answer", async () => {
    const page = createDemoPage(loadDemoConfig({ NODE_ENV: "production" }));
    expect(page.enabled).toBe(false);
    for (const [method, path] of [
      ["GET", "/"],
      ["GET", "/demo/keyward-ui.js"],
      ["POST", "/demo/session"],
    ] as const) {
      expect(
        await page.handle(request(method, path, method === "POST" ? {} : undefined)),
      ).toBeNull();
    }
  });

  it("answers only its own paths and methods", async () => {
    const page = createDemoPage(loadDemoConfig({}));
    expect(await page.handle(request("GET", "/nowhere"))).toBeNull();
    expect(await page.handle(request("POST", "/", {}))).toBeNull();
    expect(await page.handle(request("GET", "/demo/session"))).toBeNull();
    const head = await page.handle(request("HEAD", "/"));
    expect(head?.status).toBe(200);
    expect(await head?.text()).toBe("");
  });

  it("mints sessions only with the development secret", async () => {
    const own = createDemoPage(loadDemoConfig({ KEYWARD_JWT_SECRET: "x".repeat(32) }));
    expect(
      await own.handle(request("POST", "/demo/session", { sub: "a", tier: "pro" })),
    ).toBeNull();
    const html = await (await own.handle(request("GET", "/")))!.text();
    expect(html).toContain('id="paste-token"');

    const development = createDemoPage(loadDemoConfig({}));
    const minted = await development.handle(
      request("POST", "/demo/session", { sub: "a", tier: "pro" }),
    );
    expect(minted?.status).toBe(200);
    expect(minted?.headers.get("cache-control")).toBe("no-store");
  });

  it.each([
    [{ sub: "a\u0000b", tier: "free" }, "sub"],
    [{ sub: "x".repeat(256), tier: "free" }, "sub"],
    [{ sub: "a", tier: "gold" }, "tier"],
    [{ tier: "free" }, "sub"],
  ])("refuses %j with 422 naming %s", async (body, field) => {
    const page = createDemoPage(loadDemoConfig({}));
    const reply = await page.handle(request("POST", "/demo/session", body));
    expect(reply?.status).toBe(422);
    expect(await reply?.json()).toEqual({
      detail: [{ loc: ["body", field], msg: expect.any(String), type: expect.any(String) }],
    });
  });

  it("refuses a body that is not JSON with 400", async () => {
    const page = createDemoPage(loadDemoConfig({}));
    const reply = await page.handle(
      new Request("http://localhost/demo/session", { method: "POST", body: "{" }),
    );
    expect(reply?.status).toBe(400);
  });
});
