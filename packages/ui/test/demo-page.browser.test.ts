/**
 * The demo's key page itself (examples/shared/src/page/), in Chromium at 375 px (a touch phone)
 * and 1280 px, in light and in dark, as a newcomer opens it:
 *
 * - the page follows `prefers-color-scheme` as `<keyward-keys>` does: the page behind the component
 *   has the component's own background, so no dark box sits on a white page, and the list's
 *   heading has room from the screen's edge;
 * - the create dialog's Create button is in view when the dialog opens, on a phone too (the form
 *   is longer than the screen; its buttons stay at the dialog's bottom edge);
 * - a key used after the list was loaded shows its last use when the person comes back to the page
 *   (the list is read again when the page becomes visible), not "Never" until a reload;
 * - on a phone's card, the second line of "Last used" ("from 127.0.0.1") stays in the value
 *   column, beside its label, not under it.
 */
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningExample, startExample } from "../../../examples/shared/test/run-example.js";
import { launchChromium, runBrowserTests } from "./browser.js";

const settings = [
  { width: 375, height: 740, colorScheme: "light" },
  { width: 375, height: 740, colorScheme: "dark" },
  { width: 1280, height: 800, colorScheme: "light" },
  { width: 1280, height: 800, colorScheme: "dark" },
] as const;

describe.runIf(runBrowserTests)("the demo's key page in Chromium", () => {
  let demo: RunningExample;
  let browser: Browser;

  beforeAll(async () => {
    [demo, browser] = await Promise.all([startExample("fetch"), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    await demo?.stop();
  });

  async function open(setting: (typeof settings)[number]): Promise<Page> {
    const phone = setting.width < 600;
    const context = await browser.newContext({
      viewport: { width: setting.width, height: setting.height },
      colorScheme: setting.colorScheme,
      ...(phone ? { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}),
      locale: "en-GB",
      timezoneId: "UTC",
    });
    const page = await context.newPage();
    await page.goto(`${demo.origin}/`);
    await page.waitForFunction(() => customElements.get("keyward-keys") !== undefined);
    return page;
  }

  /** The element's box lies whole inside the viewport, as the page is now (no scrolling). */
  async function expectInViewport(locator: Locator, what: string): Promise<void> {
    const box = await locator.boundingBox();
    const viewport = locator.page().viewportSize()!;
    expect(box, what).not.toBeNull();
    expect(box!.y, `${what}: top`).toBeGreaterThanOrEqual(0);
    expect(box!.y + box!.height, `${what}: bottom`).toBeLessThanOrEqual(viewport.height);
    expect(box!.x + box!.width, `${what}: right`).toBeLessThanOrEqual(viewport.width);
  }

  /** What the person sees when they come back to the tab: the page becomes visible again. */
  const comeBack = (page: Page) =>
    page.evaluate(() => document.dispatchEvent(new Event("visibilitychange")));

  for (const setting of settings) {
    const name = `${setting.width} px, ${setting.colorScheme}`;
    it(`${name}: page colours, the create button, a fresh last use, the card's second line`, async () => {
      const page = await open(setting);
      const keys = page.locator("keyward-keys");

      // The page's background is the component's, in either scheme.
      const [pageBackground, componentBackground] = await page.evaluate(() => [
        getComputedStyle(document.body).backgroundColor,
        getComputedStyle(document.querySelector("keyward-keys")!).backgroundColor,
      ]);
      expect(componentBackground).toBe(
        setting.colorScheme === "dark" ? "rgb(13, 17, 23)" : "rgb(255, 255, 255)",
      );
      expect(pageBackground, "the page behind the component").toBe(componentBackground);

      const user = `page-${crypto.randomUUID().slice(0, 8)}`;
      await page.getByLabel("User id (sub)").fill(user);
      await page.getByRole("button", { name: "Act as this user" }).click();
      await expect.poll(() => page.getByText("No API keys yet").count()).toBe(1);
      const heading = (await keys.locator("#keys-title").boundingBox())!;
      expect(heading.x, "the list's heading, from the screen's left edge").toBeGreaterThanOrEqual(
        12,
      );

      // Create: the dialog's Create button is in view as soon as the dialog opens.
      await keys.getByRole("button", { name: "Create key" }).click();
      const dialog = page.getByRole("dialog");
      await expect.poll(() => dialog.isVisible()).toBe(true);
      const create = dialog.getByRole("button", { name: "Create key" });
      await expectInViewport(create, "the dialog's Create button");
      await dialog.getByLabel("Name").fill("Page key");
      await dialog.getByRole("checkbox", { name: /profile:read/ }).click();
      await create.click();
      await expect.poll(() => dialog.getByText("you will not see this key again").count()).toBe(1);
      const secret = await dialog.getByLabel("Secret key").inputValue();
      await dialog.getByRole("button", { name: "Done, I have copied it" }).click();
      await expect.poll(() => dialog.isVisible()).toBe(false);

      const lastUsed = keys
        .getByRole("row", { name: /Page key/ })
        .locator('td[data-label="Last used"]');
      await expect.poll(() => lastUsed.textContent()).toContain("Never");

      // The key is used elsewhere (curl, another service) while the page stays as it was.
      const used = await fetch(`${demo.origin}/api/v1/profiles/ada`, {
        headers: { authorization: `Bearer ${secret}` },
      });
      expect(used.status).toBe(200);
      // Coming back to the page shows the use, without a reload (usage is written in batches:
      // the person may come back more than once before it is there).
      await expect
        .poll(async () => {
          await comeBack(page);
          return lastUsed.textContent();
        })
        .toContain("from 127.0.0.1");
      expect(await lastUsed.textContent()).not.toContain("Never");

      if (setting.width < 600) {
        // The card: the address's line is in the value column, right of the label ("Last
        // used", at least 6em wide), not under the label.
        const cell = (await lastUsed.boundingBox())!;
        const address = (await lastUsed.locator(".last-used-address").boundingBox())!;
        expect(address.x - cell.x, "the address, from the card's left edge").toBeGreaterThan(80);
      }
      await page.context().close();
    });
  }
});
