/**
 * `<keyward-keys>` on a phone, in Chromium with touch (375×740, `isMobile`, `hasTouch`) against the
 * real demo: no horizontal scroll, the list as stacked cards, dialogs inside the viewport, the
 * one-time reveal in view with a Done button a tap reaches, chart labels of at least 10 px; and no
 * horizontal scroll at 320 px either.
 */
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningExample, startExample } from "../../../examples/shared/test/run-example.js";
import { axeViolations, launchChromium, runBrowserTests } from "./browser.js";

describe.runIf(runBrowserTests)("<keyward-keys> on a touch screen of 375×740", () => {
  let demo: RunningExample;
  let browser: Browser;
  let context: BrowserContext;

  beforeAll(async () => {
    [demo, browser] = await Promise.all([startExample("fetch"), launchChromium()]);
    context = await browser.newContext({
      viewport: { width: 375, height: 740 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
      locale: "en-GB",
      timezoneId: "UTC",
    });
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await demo?.stop();
  });

  /** How far the page scrolls sideways: 0 when everything fits the viewport's width. */
  const sidewaysOverflow = (page: Page) =>
    page.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth);

  async function expectNoAxeViolations(page: Page, state: string): Promise<void> {
    const violations = await axeViolations(page);
    expect(violations, `axe-core on ${state}:\n${JSON.stringify(violations, null, 2)}`).toEqual([]);
  }

  /** The element's box lies inside the viewport, whole. */
  async function expectInViewport(locator: Locator, what: string): Promise<void> {
    const box = await locator.boundingBox();
    const viewport = locator.page().viewportSize()!;
    expect(box, what).not.toBeNull();
    expect(box!.x, `${what}: left`).toBeGreaterThanOrEqual(0);
    expect(box!.y, `${what}: top`).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width, `${what}: right`).toBeLessThanOrEqual(viewport.width);
    expect(box!.y + box!.height, `${what}: bottom`).toBeLessThanOrEqual(viewport.height);
  }

  /** The size text is drawn at, in CSS pixels: an SVG's own scale included. */
  const renderedFontSizes = (labels: Locator) =>
    labels.evaluateAll((elements) =>
      elements.map((element) => {
        const size = Number.parseFloat(getComputedStyle(element).fontSize);
        const scale = element instanceof SVGGraphicsElement ? (element.getScreenCTM()?.a ?? 1) : 1;
        return size * scale;
      }),
    );

  it("fits a phone: stacked cards, dialogs and the reveal in view, Done tappable, legible chart", async () => {
    const page = await context.newPage();
    await page.goto(`${demo.origin}/`);
    await page.getByLabel("User id (sub)").fill(`phone-${crypto.randomUUID().slice(0, 8)}`);
    await page.getByRole("button", { name: "Act as this user" }).tap();
    await expect.poll(() => page.getByText("No API keys yet").count()).toBe(1);
    expect(await sidewaysOverflow(page), "the empty list").toBeLessThanOrEqual(0);

    // Create, in a dialog that fits the screen.
    await page.getByRole("button", { name: "Create key" }).tap();
    const dialog = page.getByRole("dialog");
    await expect.poll(() => dialog.isVisible()).toBe(true);
    await expectInViewport(dialog, "the create dialog");
    await dialog.getByLabel("Name").fill("Phone key with a rather long name to wrap");
    await dialog.getByRole("checkbox", { name: /profile:read/ }).tap();
    await dialog.getByRole("button", { name: "Create key" }).tap();

    // The one-time reveal: in view, the secret and Done whole on screen, Done answering a tap.
    await expect.poll(() => dialog.getByText("you will not see this key again").count()).toBe(1);
    await expectInViewport(dialog, "the reveal");
    await expectInViewport(dialog.getByLabel("Secret key"), "the secret");
    const done = dialog.getByRole("button", { name: "Done, I have copied it" });
    await expectInViewport(done, "Done");
    const secret = await dialog.getByLabel("Secret key").inputValue();
    await expectNoAxeViolations(page, "the reveal on a phone");
    await done.tap();
    await expect.poll(() => dialog.isVisible()).toBe(false);

    // The list as cards: each row's cells stacked, one under the other, labelled.
    const row = page.getByRole("row", { name: /Phone key/ });
    const status = row.getByRole("cell").filter({ hasText: "Active" });
    const hint = row.getByRole("cell").filter({ hasText: "sk_live_" });
    const [statusBox, hintBox] = [(await status.boundingBox())!, (await hint.boundingBox())!];
    expect(Math.abs(statusBox.x - hintBox.x), "the cells share a left edge").toBeLessThan(2);
    expect(hintBox.y, "the hint is under the status").toBeGreaterThan(statusBox.y);
    expect(await hint.getAttribute("data-label")).toBe("Key");
    expect(await hint.evaluate((cell) => getComputedStyle(cell, "::before").content)).not.toBe(
      "none",
    );
    expect(await page.getByRole("columnheader", { name: "Status" }).isVisible()).toBe(false);
    expect(await sidewaysOverflow(page), "the list").toBeLessThanOrEqual(0);
    await expectNoAxeViolations(page, "the list on a phone");

    // Usage, after a request with the key: labels legible, nothing sideways.
    const used = await fetch(`${demo.origin}/api/v1/profiles/ada`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(used.status).toBe(200);
    await page.getByRole("button", { name: /Usage of Phone key/ }).tap();
    await expect.poll(() => page.locator(".usage-total").textContent()).toBe("1");
    const labels = page.locator("keyward-keys").locator(".chart-label");
    expect(await labels.count()).toBeGreaterThan(2);
    for (const size of await renderedFontSizes(labels)) {
      expect(size, "a chart label's size in CSS pixels").toBeGreaterThanOrEqual(10);
    }
    expect(await sidewaysOverflow(page), "the usage panel").toBeLessThanOrEqual(0);
    await expectNoAxeViolations(page, "the usage panel on a phone");

    // Revoke's confirmation fits too.
    await page.getByRole("button", { name: /Revoke Phone key/ }).tap();
    await expect.poll(() => dialog.getByText("This cannot be undone.").count()).toBe(1);
    await expectInViewport(dialog, "the revoke confirmation");
    await dialog.getByRole("button", { name: "Cancel" }).tap();

    // 320 px, the narrowest screen the component is made for.
    await page.setViewportSize({ width: 320, height: 640 });
    expect(await sidewaysOverflow(page), "the list and usage at 320 px").toBeLessThanOrEqual(0);
    for (const size of await renderedFontSizes(labels)) {
      expect(size, "a chart label at 320 px").toBeGreaterThanOrEqual(10);
    }
    await page.close();
  }, 120_000);
});
