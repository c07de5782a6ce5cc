/**
 * Dark mode in Chromium against the real demo: `prefers-color-scheme: dark` (Playwright's
 * `colorScheme`) and the `theme` attribute each switch the palette, a host's `--keyward-color-*`
 * still wins, and axe-core finds no violation in any state, in either theme: signed out, the empty
 * list, the create form with field errors, the reveal, the list, usage, the cards of a narrow
 * screen, and a failed load.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningExample, startExample } from "../../../examples/shared/test/run-example.js";
import { closedPort } from "./answering-server.js";
import { axeViolations, launchChromium, runBrowserTests } from "./browser.js";

const lightBackground = "rgb(255, 255, 255)";
const darkBackground = "rgb(13, 17, 23)";

describe.runIf(runBrowserTests)("<keyward-keys> themes in Chromium", () => {
  let demo: RunningExample;
  let browser: Browser;

  beforeAll(async () => {
    [demo, browser] = await Promise.all([startExample("fetch"), launchChromium()]);
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await demo?.stop();
  });

  async function open(colorScheme: "light" | "dark"): Promise<Page> {
    const context = await browser.newContext({
      viewport: { width: 1000, height: 760 },
      colorScheme,
      locale: "en-GB",
      timezoneId: "UTC",
    });
    const page = await context.newPage();
    await page.goto(`${demo.origin}/`);
    await page.waitForFunction(() => customElements.get("keyward-keys") !== undefined);
    return page;
  }

  async function signIn(page: Page): Promise<void> {
    await page.getByLabel("User id (sub)").fill(`theme-${crypto.randomUUID().slice(0, 8)}`);
    await page.getByRole("button", { name: "Act as this user" }).click();
    await expect.poll(() => page.getByText("No API keys yet").count()).toBe(1);
  }

  const background = (page: Page, selector = "keyward-keys") =>
    page.evaluate((target) => {
      const host = document.querySelector("keyward-keys")!;
      const element = target === "keyward-keys" ? host : host.shadowRoot!.querySelector(target)!;
      return getComputedStyle(element).backgroundColor;
    }, selector);

  const setTheme = (page: Page, theme: string | null) =>
    page.evaluate((value) => {
      const host = document.querySelector("keyward-keys")!;
      if (value === null) host.removeAttribute("theme");
      else host.setAttribute("theme", value);
    }, theme);

  async function expectNoAxeViolations(page: Page, state: string): Promise<void> {
    const violations = await axeViolations(page);
    expect(violations, `axe-core on ${state}:\n${JSON.stringify(violations, null, 2)}`).toEqual([]);
  }

  it("follows prefers-color-scheme by default; theme=light and theme=dark override it", async () => {
    const dark = await open("dark");
    expect(await dark.locator("keyward-keys").getAttribute("theme")).toBe("auto");
    expect(await background(dark)).toBe(darkBackground);
    await setTheme(dark, "light");
    await expect.poll(() => background(dark)).toBe(lightBackground);
    await dark.close();

    const light = await open("light");
    expect(await background(light)).toBe(lightBackground);
    await setTheme(light, "dark");
    await expect.poll(() => background(light)).toBe(darkBackground);
    // The property too, as a framework sets it.
    await light.evaluate(() => {
      document.querySelector("keyward-keys")!.theme = "light";
    });
    await expect.poll(() => background(light)).toBe(lightBackground);
    await light.close();
  });

  it("keeps the host's colours in either theme", async () => {
    for (const scheme of ["light", "dark"] as const) {
      const page = await open(scheme);
      await page.addStyleTag({
        content: "keyward-keys { --keyward-color-background: rgb(1, 2, 3); }",
      });
      await expect.poll(() => background(page)).toBe("rgb(1, 2, 3)");
      await setTheme(page, scheme === "light" ? "dark" : "light");
      expect(await background(page)).toBe("rgb(1, 2, 3)");
      await page.close();
    }
  });

  for (const scheme of ["light", "dark"] as const) {
    it(`has no axe-core violation in any state, ${scheme}`, async () => {
      const page = await open(scheme);
      const expected = scheme === "dark" ? darkBackground : lightBackground;
      expect(await background(page)).toBe(expected);
      await expect.poll(() => page.getByText("You are signed out").count()).toBe(1);
      await expectNoAxeViolations(page, `signed out, ${scheme}`);

      await signIn(page);
      await expectNoAxeViolations(page, `the empty list, ${scheme}`);

      await page.getByRole("button", { name: "Create key" }).click();
      const dialog = page.getByRole("dialog");
      await dialog.getByRole("button", { name: "Create key" }).click();
      await expect.poll(() => dialog.locator(".field-error").count()).toBe(2);
      expect(await background(page, "dialog")).toBe(expected);
      await expectNoAxeViolations(page, `the create form with field errors, ${scheme}`);

      await dialog.getByLabel("Name").fill("Themed");
      await dialog.getByRole("checkbox", { name: /profile:read/ }).check();
      await dialog.getByRole("button", { name: "Create key" }).click();
      await expect.poll(() => dialog.getByText("you will not see this key again").count()).toBe(1);
      await expectNoAxeViolations(page, `the reveal, ${scheme}`);
      await dialog.getByRole("button", { name: "Done, I have copied it" }).click();

      await page.getByRole("button", { name: "Usage of Themed" }).click();
      await expect.poll(() => page.locator(".usage-total").count()).toBe(1);
      await expectNoAxeViolations(page, `the list and usage, ${scheme}`);

      await page.getByRole("button", { name: "Revoke Themed" }).click();
      await dialog.getByRole("button", { name: "Revoke key" }).click();
      await expect
        .poll(() =>
          page
            .getByRole("row", { name: /Themed/ })
            .getByText("Revoked")
            .count(),
        )
        .toBe(1);
      await expectNoAxeViolations(page, `the list with a revoked key, ${scheme}`);

      await page.setViewportSize({ width: 375, height: 740 });
      await expectNoAxeViolations(page, `the cards of a narrow screen, ${scheme}`);

      const port = await closedPort();
      await page.evaluate((base) => {
        document.querySelector("keyward-keys")!.basePath = base;
      }, `http://127.0.0.1:${port}/api/v1/api-keys`);
      await expect.poll(() => page.getByText("Could not reach the server").count()).toBe(1);
      await expectNoAxeViolations(page, `a failed load, ${scheme}`);
      await page.close();
    }, 90_000);
  }
});
