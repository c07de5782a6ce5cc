/**
 * `<keyward-keys>`' usage panel shows a key's budgets when the server lists `budgets()` (the
 * demo does): per budget what was spent, what unsettled holds take and what is left, as the usage
 * report's `budgets` section says; nothing about budgets for a key without one. In Debian's
 * Chromium against a real server in this process (`keyward-server.ts`), with axe-core.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axeViolations, launchChromium, runBrowserTests } from "./browser.js";
import { type KeywardServer, startKeywardServer } from "./keyward-server.js";

describe.runIf(runBrowserTests)("<keyward-keys>: a key's budgets in its usage", () => {
  let server: KeywardServer;
  let browser: Browser;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startKeywardServer(), launchChromium()]);
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("shows held, spent and left of the key's own budget, and no budgets for a key without one", async () => {
    const ownerId = `ui-${crypto.randomUUID().slice(0, 8)}`;
    const { keyward } = server;
    const create = (name: string, budget?: { limit: number; period: "week" }) =>
      keyward.keys.create({
        ownerId,
        accountTier: "pro",
        name,
        scopes: ["completions:write"],
        tier: "pro",
        ...(budget ? { budget } : {}),
      });
    const agent = await create("agent", { limit: 100, period: "week" });
    await create("plain");
    const reserve = async (cost: number) => {
      const reserved = await keyward.budgets.reserve(`Bearer ${agent.key}`, {
        scopes: ["completions:write"],
        route: "POST /api/v1/completions",
        cost,
      });
      if (!reserved.ok) throw new Error(`refused: ${JSON.stringify(reserved.error)}`);
      return reserved.hold;
    };
    await reserve(30); // held
    await (await reserve(25)).settle(20); // 20 spent, 5 back

    const context = await browser.newContext({ locale: "en-GB", timezoneId: "UTC" });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(`${server.origin}/`);
    const token = await server.session({ sub: ownerId, tier: "pro" });
    await page.evaluate((session) => {
      document.querySelector("keyward-keys")!.token = session;
    }, token);
    const component = page.locator("keyward-keys");
    await expect.poll(() => component.getByRole("rowheader", { name: "agent" }).count()).toBe(1);

    await component.getByRole("button", { name: "Usage of agent" }).click();
    const budgets = component.getByRole("region", { name: "Budgets" });
    await expect.poll(() => budgets.count()).toBe(1);
    expect(await budgets.locator(".budget-own dt").textContent()).toBe("Its own");
    expect(await budgets.locator(".budget-own .budget-standing").textContent()).toBe(
      "20 spent · 30 held · 50 left of 100 this week",
    );
    // A week budget is whole again on Monday 00:00 UTC.
    const day = Math.floor(Date.now() / 86_400_000);
    const monday = new Date((day + 7 - ((day + 3) % 7)) * 86_400_000);
    expect(await budgets.locator(".budget-own").textContent()).toMatch(
      new RegExp(`Whole again ${monday.getUTCDate()} \\w+ ${monday.getUTCFullYear()}, 00:00`),
    );
    // The demo configures no per-key or per-owner budget: only the key's own is shown.
    expect(await budgets.locator(".budget").count()).toBe(1);
    const violations = await axeViolations(page);
    expect(violations, JSON.stringify(violations, null, 2)).toEqual([]);

    await component.getByRole("button", { name: "Close usage" }).click();
    await component.getByRole("button", { name: "Usage of plain" }).click();
    await expect.poll(() => component.locator(".usage-total").count()).toBe(1);
    expect(await component.getByRole("region", { name: "Budgets" }).count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });
});
