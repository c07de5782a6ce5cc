/**
 * `<keyward-keys>` end to end, in Debian's Chromium, against the real demo server (`pnpm start`:
 * examples/fetch, in memory, development mode) and its page at `/`: create → reveal and copy →
 * the list shows the hint → rotate → revoke → usage, axe-core on every state, and the same create
 * and revoke with the keyboard only. The screenshots in docs/ui.md are taken here
 * (`pnpm docs:screenshots` writes them into docs/images; a test run, into a temporary folder).
 */
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningExample, startExample } from "../../../examples/shared/test/run-example.js";
import { axeViolations, focusedName, launchChromium, runBrowserTests, tabTo } from "./browser.js";
import { screenshotFolder } from "./screenshots.js";

describe.runIf(runBrowserTests)("<keyward-keys> in Chromium against the demo server", () => {
  /** This run's screenshot folder (docs/images only through `pnpm docs:screenshots`). */
  let screenshots: string;
  let server: RunningExample;
  let browser: Browser;
  let context: BrowserContext;

  beforeAll(async () => {
    screenshots = screenshotFolder();
    [server, browser] = await Promise.all([startExample("fetch"), launchChromium()]);
    context = await browser.newContext({
      viewport: { width: 1100, height: 760 },
      locale: "en-GB",
      timezoneId: "UTC",
      permissions: ["clipboard-read", "clipboard-write"],
    });
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  /** The demo page, signed in through its "act as" form as a new user of `tier`. */
  async function signedInPage(tier: "free" | "pro" | "enterprise"): Promise<Page> {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(message.text());
    });
    await page.goto(`${server.origin}/`);
    await page.getByLabel("User id (sub)").fill(`ui-${crypto.randomUUID().slice(0, 8)}`);
    await page.getByLabel("Account tier").selectOption(tier);
    await page.getByRole("button", { name: "Act as this user" }).click();
    await expect.poll(() => page.getByText("No API keys yet").count()).toBe(1);
    expect(errors).toEqual([]);
    // Every event the component dispatches, for the checks on what their details carry.
    await page.evaluate(() => {
      const seen: { type: string; detail: unknown }[] = [];
      (window as unknown as { keywardEvents: typeof seen }).keywardEvents = seen;
      for (const type of [
        "keyward-key-created",
        "keyward-key-rotated",
        "keyward-key-revoked",
        "keyward-secret-copied",
        "keyward-error",
      ]) {
        document.addEventListener(type, (event) =>
          seen.push({ type, detail: (event as CustomEvent).detail }),
        );
      }
    });
    return page;
  }

  const events = (page: Page) =>
    page.evaluate(
      () =>
        (window as unknown as { keywardEvents: { type: string; detail: unknown }[] }).keywardEvents,
    );

  async function expectNoAxeViolations(page: Page, state: string): Promise<void> {
    const violations = await axeViolations(page);
    expect(violations, `axe-core on ${state}:\n${JSON.stringify(violations, null, 2)}`).toEqual([]);
  }

  async function guarded(method: "GET" | "PUT", key: string): Promise<number> {
    const response = await fetch(`${server.origin}/api/v1/profiles/ada`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      ...(method === "PUT" ? { body: "{}" } : {}),
    });
    await response.body?.cancel();
    return response.status;
  }

  it("create → reveal and copy → hint in the list → rotate → revoke → usage, with no axe violations", async () => {
    const page = await signedInPage("pro");
    await expectNoAxeViolations(page, "the empty list");

    // Create, with the scope and tier pickers.
    await page.getByRole("button", { name: "Create key" }).click();
    const dialog = page.getByRole("dialog");
    await expect.poll(() => dialog.isVisible()).toBe(true);
    await dialog.getByLabel("Name").fill("CI deploys");
    await dialog.getByRole("checkbox", { name: /profile:read/ }).check();
    await dialog.getByRole("checkbox", { name: /profile:write/ }).check();
    await dialog.getByLabel("Tier").selectOption("pro");
    await page.screenshot({ path: path.join(screenshots, "ui-create.png") });
    await expectNoAxeViolations(page, "the create dialog");
    await dialog.getByRole("button", { name: "Create key" }).click();

    // The one-time reveal: the warning, the secret, copy.
    await expect.poll(() => dialog.getByText("you will not see this key again").count()).toBe(1);
    const secret = await dialog.getByLabel("Secret key").inputValue();
    expect(secret).toMatch(/^sk_live_[0-9A-Za-z]{36}$/);
    await expect
      .poll(() => page.getByRole("status").filter({ hasText: "Copy it now" }).count())
      .toBe(1);
    await dialog.getByRole("button", { name: "Copy", exact: true }).click();
    await expect
      .poll(() => dialog.getByRole("button", { name: "Copied", exact: true }).count())
      .toBe(1);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await page.screenshot({ path: path.join(screenshots, "ui-reveal.png") });
    await expectNoAxeViolations(page, "the reveal");
    await dialog.getByRole("button", { name: "Done, I have copied it" }).click();
    await expect.poll(() => dialog.isVisible()).toBe(false);
    expect(await page.getByLabel("Secret key").count(), "the secret left the page").toBe(0);

    // The list: the hint, never the secret.
    const row = page.getByRole("row", { name: /CI deploys/ });
    expect(await row.locator("code.hint").textContent()).toBe(`sk_live_…${secret.slice(-4)}`);
    expect(await row.getByText("Active").count()).toBe(1);
    expect(await page.content()).not.toContain(secret);

    // A few requests with the key, so the usage has data.
    expect(await guarded("GET", secret)).toBe(200);
    expect(await guarded("GET", secret)).toBe(200);
    expect(await guarded("PUT", secret)).toBe(200);

    // Rotate, confirmed: a new secret, the old one refused at once.
    await page.getByRole("button", { name: "Rotate CI deploys" }).click();
    await expect.poll(() => dialog.getByText("stops working").count()).toBe(1);
    await expectNoAxeViolations(page, "the rotate confirmation");
    await dialog.getByRole("button", { name: "Rotate key" }).click();
    await expect.poll(() => dialog.getByText("you will not see this key again").count()).toBe(1);
    const rotated = await dialog.getByLabel("Secret key").inputValue();
    expect(rotated).toMatch(/^sk_live_/);
    expect(rotated).not.toBe(secret);
    await dialog.getByRole("button", { name: "Done, I have copied it" }).click();
    expect(await guarded("GET", secret)).toBe(401);
    expect(await guarded("GET", rotated)).toBe(200);
    await expect
      .poll(() => row.locator("code.hint").textContent())
      .toBe(`sk_live_…${rotated.slice(-4)}`);

    // Usage: totals, the chart per day, the bars per endpoint.
    await page.getByRole("button", { name: "Usage of CI deploys" }).click();
    await expect.poll(() => page.locator(".usage-total").textContent()).toBe("4");
    // The demo records each key's last client address (lastUsedAddress): this test's, on loopback,
    // beside the last use in the panel and, once the report is in, in the key's row.
    const lastUsedAddress = /^from (127\.0\.0\.1|::1)$/;
    expect(await page.locator(".usage .last-used-address").textContent()).toMatch(lastUsedAddress);
    expect(await row.locator(".last-used-address").textContent()).toMatch(lastUsedAddress);
    const today = new Date().toISOString().slice(0, 10);
    const chart = page.getByRole("img", { name: /Requests per day/ });
    expect(await chart.getAttribute("aria-labelledby")).toBeTruthy();
    expect(await chart.locator("title", { hasText: `${today}: 4` }).count()).toBe(1);
    const endpoints = page.getByRole("list", { name: "Requests per endpoint" });
    expect(await endpoints.getByRole("listitem").allTextContents()).toEqual([
      expect.stringMatching(/GET \/api\/v1\/profiles\/:slug\s+3/),
      expect.stringMatching(/PUT \/api\/v1\/profiles\/:slug\s+1/),
    ]);
    await page.locator("keyward-keys").screenshot({ path: path.join(screenshots, "ui-usage.png") });
    await expectNoAxeViolations(page, "the usage panel");

    // Revoke, confirmed: permanent.
    await page.getByRole("button", { name: "Revoke CI deploys" }).click();
    await expect.poll(() => dialog.getByText("This cannot be undone.").count()).toBe(1);
    await page.screenshot({ path: path.join(screenshots, "ui-revoke.png") });
    await expectNoAxeViolations(page, "the revoke confirmation");
    await dialog.getByRole("button", { name: "Revoke key" }).click();
    await expect.poll(() => row.getByText("Revoked").count()).toBe(1);
    expect(await guarded("GET", rotated)).toBe(401);
    expect(await row.getByRole("button", { name: /Rotate|Revoke/ }).count()).toBe(0);
    await page.screenshot({ path: path.join(screenshots, "ui-list.png") });
    await expectNoAxeViolations(page, "the list with a revoked key");

    // Events: what happened, never a secret.
    const seen = await events(page);
    expect(seen.map((event) => event.type)).toEqual([
      "keyward-key-created",
      "keyward-secret-copied",
      "keyward-key-rotated",
      "keyward-key-revoked",
    ]);
    const serialized = JSON.stringify(seen);
    expect(serialized).not.toContain(secret);
    expect(serialized).not.toContain(rotated);
    expect(seen[0]!.detail).toMatchObject({ key: { name: "CI deploys", status: "active" } });
    expect(Object.keys((seen[0]!.detail as { key: object }).key)).not.toContain("key");
    await page.close();
  }, 120_000);

  it("rotates with a grace period chosen in the dialog: both secrets work until the time it shows", async () => {
    const page = await signedInPage("free");
    await page.getByRole("button", { name: "Create key" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Name").fill("Nightly sync");
    await dialog.getByRole("checkbox", { name: /profile:read/ }).check();
    await dialog.getByRole("button", { name: "Create key" }).click();
    await expect.poll(() => dialog.getByText("you will not see this key again").count()).toBe(1);
    const secret = await dialog.getByLabel("Secret key").inputValue();
    await dialog.getByRole("button", { name: "Done, I have copied it" }).click();

    // The choice starts at "at once"; choosing a day says so before anything happens.
    await page.getByRole("button", { name: "Rotate Nightly sync" }).click();
    const grace = dialog.getByLabel("Keep the current secret working");
    expect(await grace.inputValue()).toBe("0");
    expect(await grace.locator("option").allTextContents()).toEqual([
      "No, stop it at once",
      expect.stringMatching(/For 1 hour/),
      expect.stringMatching(/For 1 day/),
      expect.stringMatching(/For 7 days/),
    ]);
    await grace.selectOption("86400");
    await expect.poll(() => dialog.getByText("keeps working for").count()).toBe(1);
    await expectNoAxeViolations(page, "the rotate confirmation with a grace");
    await dialog.getByRole("button", { name: "Rotate key" }).click();
    await expect.poll(() => dialog.locator("#grace-note").count()).toBe(1);
    expect(await dialog.locator("#grace-note").textContent()).toMatch(/keeps working until/);
    const rotated = await dialog.getByLabel("Secret key").inputValue();
    await dialog.getByRole("button", { name: "Done, I have copied it" }).click();
    expect(await guarded("GET", secret)).toBe(200);
    expect(await guarded("GET", rotated)).toBe(200);

    // The next rotation starts from "at once" again, and ends the grace.
    await page.getByRole("button", { name: "Rotate Nightly sync" }).click();
    expect(await dialog.getByLabel("Keep the current secret working").inputValue()).toBe("0");
    await dialog.getByRole("button", { name: "Rotate key" }).click();
    await expect.poll(() => dialog.getByText("you will not see this key again").count()).toBe(1);
    expect(await dialog.locator("#grace-note").count()).toBe(0);
    const last = await dialog.getByLabel("Secret key").inputValue();
    await dialog.getByRole("button", { name: "Done, I have copied it" }).click();
    expect(await guarded("GET", secret)).toBe(401);
    expect(await guarded("GET", rotated)).toBe(401);
    expect(await guarded("GET", last)).toBe(200);
    await page.close();
  }, 120_000);

  it("words the API's refusals for people: each 422 issue beside its field, a tier above the account's", async () => {
    const page = await signedInPage("free");
    await page.getByRole("button", { name: "Create key" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("button", { name: "Create key" }).click();
    const alert = dialog.getByRole("alert");
    await expect.poll(() => alert.count()).toBe(1);
    expect(await alert.textContent()).toMatch(/Some fields need a change/);
    // Each message beside its field, tied to it for screen readers, in words, not the API's.
    const name = dialog.getByLabel("Name");
    expect(await name.getAttribute("aria-invalid")).toBe("true");
    expect(await dialog.locator("#key-name-error").textContent()).toBe("Give the key a name.");
    expect(await name.getAttribute("aria-describedby")).toContain("key-name-error");
    const scopes = dialog.getByRole("group", { name: "Scopes" });
    expect(await scopes.locator("#key-scopes-error").textContent()).toBe(
      "Choose at least one scope.",
    );
    expect(await scopes.getAttribute("aria-describedby")).toBe("key-scopes-error");
    expect(await dialog.textContent()).not.toContain("String should have at least");
    await expect.poll(() => focusedName(page)).toBe("key-name");
    await expectNoAxeViolations(page, "the create dialog with field errors");

    // A free account is offered the free tier only (the session's `tier` claim)…
    expect(await dialog.getByLabel("Tier").locator("option").allTextContents()).toEqual(["free"]);
    // …unless the host says otherwise (a plan it believes higher): the server still refuses.
    await page.locator("keyward-keys").evaluate((element) => {
      (element as HTMLElement & { accountTier: string }).accountTier = "enterprise";
    });
    await expect
      .poll(() => dialog.getByLabel("Tier").locator("option").allTextContents())
      .toEqual(["free", "pro", "enterprise"]);
    await name.fill("too high");
    await dialog.getByRole("checkbox", { name: /profile:read/ }).check();
    await dialog.getByLabel("Tier").selectOption("enterprise");
    await dialog.getByRole("button", { name: "Create key" }).click();
    await expect.poll(() => alert.textContent()).toMatch(/plan does not include that tier/);
    expect(await dialog.locator(".field-error").count(), "the fixed fields' errors are gone").toBe(
      0,
    );
    const errors = (await events(page)).filter((event) => event.type === "keyward-error");
    expect(errors.map((event) => event.detail)).toEqual([
      expect.objectContaining({ status: 422, code: "validation_failed" }),
      expect.objectContaining({ status: 403, code: "tier_not_allowed" }),
    ]);
    await expectNoAxeViolations(page, "the create dialog with errors");

    // The checks above can fail: axe-core sees into the component's shadow root.
    await page.evaluate(() => {
      const root = document.querySelector("keyward-keys")!.shadowRoot!;
      root.querySelector("dialog")!.append(document.createElement("input"));
    });
    expect((await axeViolations(page)).map((violation) => violation.id)).toContain("label");
    await page.close();
  }, 60_000);

  it("creates and revokes a key with the keyboard only, focus kept where a person expects it", async () => {
    const page = await signedInPage("pro");
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());

    // Open, and leave with Escape: focus returns to the button.
    await tabTo(page, "Create key");
    await page.keyboard.press("Enter");
    // The dialog moves focus once it has rendered: wait for it, as for every other focus move.
    await expect.poll(() => focusedName(page)).toBe("key-name");
    await page.keyboard.press("Escape");
    await expect.poll(() => focusedName(page)).toBe("Create key");

    // Create: name, a scope with Space, submit with Enter on the button.
    await page.keyboard.press("Enter");
    // The dialog moves focus once it has rendered: wait for it, as for every other focus move.
    await expect.poll(() => focusedName(page)).toBe("key-name");
    await page.keyboard.type("Keyboard key");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Space");
    await tabTo(page, "Create key");
    await page.keyboard.press("Enter");

    // The reveal puts focus on Copy.
    await expect.poll(() => focusedName(page)).toBe("Copy");
    await page.keyboard.press("Enter");
    await expect.poll(() => focusedName(page)).toBe("Copied");
    const secret = await page.evaluate(() => navigator.clipboard.readText());
    expect(secret).toMatch(/^sk_live_/);
    await tabTo(page, "Done, I have copied it");
    await page.keyboard.press("Enter");
    await expect.poll(() => focusedName(page)).toBe("Create key");
    expect(await guarded("GET", secret)).toBe(200);

    // Revoke: the confirmation opens on Cancel, so Enter alone revokes nothing.
    await tabTo(page, "Revoke Keyboard key");
    await page.keyboard.press("Enter");
    await expect.poll(() => focusedName(page)).toBe("Cancel");
    await page.keyboard.press("Tab");
    expect(await focusedName(page)).toBe("Revoke key");
    await page.keyboard.press("Enter");
    const row = page.getByRole("row", { name: /Keyboard key/ });
    await expect.poll(() => row.getByText("Revoked").count()).toBe(1);
    // The row lost its Revoke button: focus goes to the list's heading, and the change is announced.
    await expect.poll(() => focusedName(page)).toBe("API keys");
    await expect
      .poll(() => page.getByRole("status").filter({ hasText: "revoked" }).count())
      .toBe(1);
    expect(await guarded("GET", secret)).toBe(401);
    await page.close();
  }, 90_000);
});
