/**
 * The whole life of a key in `<keyward-keys>`, in Debian's Chromium, against a real Keyward server
 * configured as the demo is (keyward-server.ts), for a person's own key and an organization's key,
 * on a phone (375×740, touch) and a desktop (1280×800), in light and in dark: create (environment,
 * allowlist, only the tiers the account may grant) → reveal → copy → rotate with a grace → usage
 * with the quota and credits the operator gave the key → the audit log → rename → disable →
 * enable → revoke. In every state: axe-core finds no serious or critical violation, nothing
 * scrolls sideways, and every control is inside the viewport. Then pages of keys, and the main
 * flow with the keyboard only. The screenshots of these states in docs/ui.md are taken here
 * (`pnpm docs:screenshots` writes them into docs/images; a test run, into a temporary folder).
 */
import path from "node:path";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axeViolations, focusedName, launchChromium, runBrowserTests, tabTo } from "./browser.js";
import { type KeywardServer, startKeywardServer } from "./keyward-server.js";
import { screenshotFolder } from "./screenshots.js";

interface Setting {
  name: string;
  viewport: { width: number; height: number };
  phone: boolean;
  colorScheme: "light" | "dark";
}

const settings: Setting[] = [
  {
    name: "phone, light",
    viewport: { width: 375, height: 740 },
    phone: true,
    colorScheme: "light",
  },
  { name: "phone, dark", viewport: { width: 375, height: 740 }, phone: true, colorScheme: "dark" },
  {
    name: "desktop, light",
    viewport: { width: 1280, height: 800 },
    phone: false,
    colorScheme: "light",
  },
  {
    name: "desktop, dark",
    viewport: { width: 1280, height: 800 },
    phone: false,
    colorScheme: "dark",
  },
];

/**
 * Which screenshots a setting takes (`docs/images/ui-flow-*.png`, shown in docs/ui.md): the desktop
 * in light takes every state, the others one each.
 */
function shotName(setting: Setting, state: string): string | undefined {
  if (setting.name === "desktop, light") return `ui-flow-${state}.png`;
  if (setting.name === "phone, dark" && state === "usage-limits") return "ui-flow-phone-dark.png";
  if (setting.name === "desktop, dark" && state === "organization-list") {
    return "ui-flow-dark.png";
  }
  return undefined;
}

/** States whose screenshot is the whole component (taller than the viewport), not the page. */
const wholeComponent = new Set(["usage-limits", "audit-log"]);

describe.runIf(runBrowserTests)("<keyward-keys>: a key's whole life, against a real server", () => {
  /** This run's screenshot folder (docs/images only through `pnpm docs:screenshots`). */
  let screenshots: string;
  let server: KeywardServer;
  let browser: Browser;

  beforeAll(async () => {
    screenshots = screenshotFolder();
    [server, browser] = await Promise.all([startKeywardServer(), launchChromium()]);
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function newContext(setting: Setting): Promise<BrowserContext> {
    return browser.newContext({
      viewport: setting.viewport,
      ...(setting.phone ? { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}),
      colorScheme: setting.colorScheme,
      locale: "en-GB",
      timezoneId: "UTC",
      permissions: ["clipboard-read", "clipboard-write"],
    });
  }

  /** The demo's page with the component signed in as `token` (what its "act as" form does). */
  async function signedInPage(context: BrowserContext, token: string): Promise<Page> {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(`${server.origin}/`);
    await page.evaluate((session) => {
      document.querySelector("keyward-keys")!.token = session;
    }, token);
    await expect.poll(() => page.getByText("No API keys yet").count()).toBe(1);
    expect(errors).toEqual([]);
    return page;
  }

  /** A tap on a phone, a click elsewhere. */
  const press = (setting: Setting, locator: Locator) =>
    setting.phone ? locator.tap() : locator.click();

  /**
   * What every state must be: axe-core finds no violation (of any impact, so none serious or
   * critical), nothing scrolls sideways, and every visible control lies inside the viewport (a
   * dialog's controls once scrolled into view, as a person scrolls the dialog to reach them).
   */
  async function checkState(page: Page, setting: Setting, state: string): Promise<void> {
    const shot = shotName(setting, state);
    if (shot && wholeComponent.has(state) && !setting.phone) {
      await page.locator("keyward-keys").screenshot({ path: path.join(screenshots, shot) });
    } else if (shot) {
      await page.screenshot({ path: path.join(screenshots, shot) });
    }
    // None at all, of any impact (serious and critical included).
    const violations = await axeViolations(page);
    expect(
      violations,
      `axe-core on ${state} (${setting.name}):\n${JSON.stringify(violations, null, 2)}`,
    ).toEqual([]);
    const overflow = await page.evaluate(
      () => document.scrollingElement!.scrollWidth - window.innerWidth,
    );
    expect(overflow, `sideways scroll on ${state} (${setting.name})`).toBeLessThanOrEqual(0);
    const outside = await controlsOutsideViewport(page);
    expect(outside, `controls outside the viewport on ${state} (${setting.name})`).toEqual([]);
  }

  /**
   * The component's visible controls (the open dialog's, when one is open) that do not lie whole
   * inside the viewport once scrolled into view.
   */
  function controlsOutsideViewport(page: Page): Promise<string[]> {
    return page.evaluate(async () => {
      const root = document.querySelector("keyward-keys")!.shadowRoot!;
      const dialog = root.querySelector("dialog");
      const scope: ParentNode = dialog?.open ? dialog : root;
      const found: string[] = [];
      for (const control of scope.querySelectorAll<HTMLElement>(
        'button, input, select, textarea, [tabindex]:not([tabindex="-1"])',
      )) {
        if (control.closest("dialog") && !dialog?.open) continue;
        if (control.getClientRects().length === 0) continue; // not rendered
        control.scrollIntoView({ block: "nearest", inline: "nearest" });
        await new Promise((resolve) => requestAnimationFrame(resolve));
        const box = control.getBoundingClientRect();
        // Across, where the page starts (scrolling sideways does not count); down, once scrolled.
        const inside =
          box.left + window.scrollX >= 0 &&
          box.right + window.scrollX <= window.innerWidth + 0.5 &&
          box.top >= 0 &&
          box.bottom <= window.innerHeight + 0.5;
        const name = control.getAttribute("aria-label") || control.id || control.textContent;
        if (!inside) found.push(`${name?.trim()} at ${JSON.stringify(box)}`);
      }
      return found;
    });
  }

  /** Presses Tab until the focused element (through shadow roots) has this id. */
  async function tabToId(page: Page, id: string, limit = 40): Promise<void> {
    for (let press = 0; press < limit; press++) {
      const focused = await page.evaluate(() => {
        let element: Element | null = document.activeElement;
        while (element?.shadowRoot?.activeElement) element = element.shadowRoot.activeElement;
        return element?.id ?? "";
      });
      if (focused === id) return;
      await page.keyboard.press("Tab");
    }
    throw new Error(`Tab never reached #${id}`);
  }

  /** A request with the key to the demo's profile route, from 127.0.0.1: its status. */
  async function guarded(secret: string): Promise<number> {
    const response = await fetch(`${server.origin}/api/v1/profiles/ada`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    await response.body?.cancel();
    return response.status;
  }

  for (const setting of settings) {
    for (const owner of ["user", "organization"] as const) {
      it(`${owner === "user" ? "a person's own key" : "an organization's key"}, ${setting.name}`, async () => {
        const context = await newContext(setting);
        const suffix = crypto.randomUUID().slice(0, 8);
        const organization = `acme-${suffix}`;
        const token = await server.session({
          sub: `ada-${suffix}`,
          tier: "free",
          orgs: [{ id: organization, role: "admin", tier: "pro" }],
        });
        const page = await signedInPage(context, token);
        const component = page.locator("keyward-keys");
        await checkState(page, setting, "empty");

        // Whose keys: the switcher lists the organizations of the session.
        const switcher = component.getByLabel("Keys of");
        expect(await switcher.locator("option").allTextContents()).toEqual([
          "You (your own keys)",
          expect.stringMatching(new RegExp(`${organization}\\s*\\(admin\\)`)),
        ]);
        if (owner === "organization") {
          await switcher.selectOption(organization);
          await expect
            .poll(() => component.getByRole("heading", { level: 2 }).first().textContent())
            .toBe(`Keys of ${organization}`);
          await expect.poll(() => page.getByText("No API keys yet").count()).toBe(1);
        }

        // Create: the tiers the owner may grant (a free account; a pro organization), the
        // environment, and an allowlist.
        await press(setting, component.getByRole("button", { name: "Create key" }));
        const dialog = page.getByRole("dialog");
        await expect.poll(() => dialog.isVisible()).toBe(true);
        expect(await dialog.getByLabel("Tier").locator("option").allTextContents()).toEqual(
          owner === "user" ? ["free"] : ["free", "pro"],
        );
        expect(
          (await dialog.getByLabel("Environment").locator("option").allTextContents()).map((text) =>
            text.trim(),
          ),
        ).toEqual(["live (default)", "test"]);
        const name = owner === "user" ? "CI deploys" : "Team sync";
        await dialog.getByLabel("Name").fill(name);
        await press(setting, dialog.getByRole("checkbox", { name: /profile:read/ }));
        if (owner === "organization") {
          await dialog.getByLabel("Tier").selectOption("pro");
          await dialog.getByLabel("Environment").selectOption("test");
        }
        await dialog.getByLabel("Allowed IP addresses").fill("127.0.0.1\n10.0.0.0/8");
        await checkState(page, setting, owner === "user" ? "create" : "create-organization");
        await press(setting, dialog.getByRole("button", { name: "Create key" }));

        // The reveal, and Copy.
        await expect
          .poll(() => dialog.getByText("you will not see this key again").count())
          .toBe(1);
        const secret = await dialog.getByLabel("Secret key").inputValue();
        expect(secret).toMatch(owner === "user" ? /^sk_live_/ : /^sk_test_/);
        await press(setting, dialog.getByRole("button", { name: "Copy", exact: true }));
        await expect
          .poll(() => dialog.getByRole("button", { name: "Copied", exact: true }).count())
          .toBe(1);
        expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
        await checkState(page, setting, "reveal");
        await press(setting, dialog.getByRole("button", { name: "Done, I have copied it" }));
        await expect.poll(() => dialog.isVisible()).toBe(false);

        const row = component.locator("tr", {
          has: page.getByRole("rowheader", { name, exact: true }),
        });
        const keyId = (await row.getAttribute("data-key-id"))!;
        expect(await row.textContent()).toContain("127.0.0.1, 10.0.0.0/8");
        if (owner === "organization")
          expect(await row.locator(".badge").textContent()).toBe("test");
        await checkState(page, setting, owner === "user" ? "list" : "organization-list");

        // The operator gives the key a quota and credits (no HTTP call can).
        await server.keyward.keys.setLimits(keyId, {
          quota: { limit: 5, period: "month" },
          credits: { remaining: 10, refill: { amount: 10, period: "month" } },
        });

        // Rotate with a grace of one day: both secrets work.
        await press(setting, component.getByRole("button", { name: `Rotate ${name}` }));
        const grace = dialog.getByLabel("Keep the current secret working");
        await grace.selectOption("86400");
        await expect.poll(() => dialog.getByText("keeps working for").count()).toBe(1);
        await checkState(page, setting, "rotate-grace");
        await press(setting, dialog.getByRole("button", { name: "Rotate key" }));
        await expect.poll(() => dialog.locator("#grace-note").count()).toBe(1);
        const rotated = await dialog.getByLabel("Secret key").inputValue();
        await press(setting, dialog.getByRole("button", { name: "Done, I have copied it" }));
        await expect.poll(() => dialog.isVisible()).toBe(false);
        expect(await guarded(secret)).toBe(200);
        expect(await guarded(secret)).toBe(200);
        expect(await guarded(rotated)).toBe(200);

        // Usage: the quota and the credits, and the audit log.
        await press(setting, component.getByRole("button", { name: `Usage of ${name}` }));
        await expect.poll(() => component.locator(".usage-total").textContent()).toBe("3");
        expect(await component.locator(".quota-used").textContent()).toBe(
          "3 / 5 requests this month",
        );
        expect(await component.locator(".usage-quota").textContent()).toMatch(
          /Resets 1 \w+ 20\d\d/,
        );
        expect(await component.locator(".credits-remaining").textContent()).toBe("7 left");
        expect(await component.locator(".usage-credits").textContent()).toMatch(/Back to 10 on/);
        const log = component.getByRole("list", { name: "Activity" });
        await expect
          .poll(() => log.locator("li .event-type").allTextContents())
          .toEqual(["Rotated", "Created"]);
        expect(await log.locator("li").first().textContent()).toContain(`by ada-${suffix}`);
        await checkState(page, setting, "usage-limits");
        await press(setting, component.getByRole("button", { name: "Close usage" }));

        // Rename, and a narrower allowlist.
        await press(setting, component.getByRole("button", { name: `Edit ${name}` }));
        expect(await dialog.getByLabel("Name").inputValue()).toBe(name);
        const renamed = `${name} (prod)`;
        await dialog.getByLabel("Name").fill(renamed);
        await dialog.getByLabel("Allowed IP addresses").fill("127.0.0.1");
        await checkState(page, setting, "edit");
        await press(setting, dialog.getByRole("button", { name: "Save changes" }));
        await expect.poll(() => dialog.isVisible()).toBe(false);
        const renamedRow = component.locator("tr", {
          has: page.getByRole("rowheader", { name: renamed, exact: true }),
        });
        await expect.poll(() => renamedRow.count()).toBe(1);
        expect(await renamedRow.textContent()).not.toContain("10.0.0.0/8");

        // Disable: refused at once; enable: back.
        await press(setting, component.getByRole("button", { name: `Disable ${renamed}` }));
        await expect.poll(() => renamedRow.locator(".status").textContent()).toBe("Disabled");
        expect(await guarded(rotated)).toBe(401);
        await expect
          .poll(() => page.getByRole("status").filter({ hasText: "disabled" }).count())
          .toBe(1);
        await checkState(page, setting, "disabled");
        await press(setting, component.getByRole("button", { name: `Enable ${renamed}` }));
        await expect.poll(() => renamedRow.locator(".status").textContent()).toBe("Active");
        expect(await guarded(rotated)).toBe(200);

        // Revoke, confirmed.
        await press(setting, component.getByRole("button", { name: `Revoke ${renamed}` }));
        await expect.poll(() => dialog.getByText("This cannot be undone.").count()).toBe(1);
        await checkState(page, setting, "revoke");
        await press(setting, dialog.getByRole("button", { name: "Revoke key" }));
        await expect.poll(() => renamedRow.locator(".status").textContent()).toBe("Revoked");
        expect(await guarded(rotated)).toBe(401);

        // The audit log tells it all, newest first: the request after enabling was the 4th of 5,
        // which crossed the quota's 80 % threshold.
        await press(setting, component.getByRole("button", { name: `Usage of ${renamed}` }));
        await expect
          .poll(() => log.locator("li .event-type").allTextContents())
          .toEqual([
            "Revoked",
            "Quota threshold reached",
            "Enabled",
            "Disabled",
            "Changed",
            "Rotated",
            "Created",
          ]);
        expect(await log.locator("li").nth(1).textContent()).toContain("(80 %)");
        await checkState(page, setting, "audit-log");

        // 320 px, the narrowest screen the component is made for: the details, the switcher and
        // the create form (environment, allowlist) fit too.
        if (setting.phone && setting.colorScheme === "light") {
          await page.setViewportSize({ width: 320, height: 640 });
          await checkState(page, setting, "the audit log at 320 px");
          await press(setting, component.getByRole("button", { name: "Create key" }));
          await expect.poll(() => dialog.isVisible()).toBe(true);
          await checkState(page, setting, "the create form at 320 px");
          await press(setting, dialog.getByRole("button", { name: "Cancel" }));
          await expect.poll(() => dialog.isVisible()).toBe(false);
        }

        // The other owner's list does not hold the key.
        await switcher.selectOption(owner === "user" ? organization : "");
        await expect.poll(() => page.getByText("No API keys yet").count()).toBe(1);
        await context.close();
      }, 180_000);
    }
  }

  it("pages a long list: 25 keys, then the rest on Show more keys (desktop and phone)", async () => {
    const sub = `many-${crypto.randomUUID().slice(0, 8)}`;
    for (let index = 1; index <= 30; index++) {
      await server.keyward.keys.create({
        ownerId: sub,
        accountTier: "free",
        name: `key ${String(index).padStart(2, "0")}`,
        scopes: ["profile:read"],
        tier: "free",
      });
    }
    const token = await server.session({ sub, tier: "free" });
    for (const setting of [settings[2]!, settings[1]!]) {
      const context = await newContext(setting);
      const page = await context.newPage();
      await page.goto(`${server.origin}/`);
      await page.evaluate((session) => {
        document.querySelector("keyward-keys")!.token = session;
      }, token);
      const component = page.locator("keyward-keys");
      const rows = component.locator("tbody tr");
      await expect.poll(() => rows.count()).toBe(25);
      // No switcher without organizations.
      expect(await component.getByLabel("Keys of").count()).toBe(0);
      const more = component.getByRole("button", { name: "Show more keys" });
      await checkState(page, setting, "pages");
      await press(setting, more);
      await expect.poll(() => rows.count()).toBe(30);
      // Every key once (keys made in the same millisecond have no order but the server's).
      const names = await rows.locator("th").allTextContents();
      expect(new Set(names).size).toBe(30);
      expect(await more.count()).toBe(0);
      // Focus moved to the first key of the new page.
      await expect.poll(() => focusedName(page)).toBe(names[25]);
      // The viewport check can fail: a control wider than the screen is reported.
      await page.evaluate(() => {
        const wide = document.createElement("button");
        wide.textContent = "too wide";
        wide.style.cssText = "position: relative; left: 2000px";
        document.querySelector("keyward-keys")!.shadowRoot!.append(wide);
      });
      expect(await controlsOutsideViewport(page)).toEqual([expect.stringMatching(/^too wide at/)]);
      await context.close();
    }
  }, 120_000);

  it("organization-id fixes the organization: no switcher, its keys listed and created there; a host's organizations list wins over the session's", async () => {
    const suffix = crypto.randomUUID().slice(0, 8);
    const organization = `fixed-${suffix}`;
    await server.keyward.keys.create({
      owner: { type: "organization", id: organization },
      createdBy: "someone",
      accountTier: "pro",
      name: "Made by the operator",
      scopes: ["profile:read"],
      tier: "pro",
    });
    const token = await server.session({
      sub: `member-${suffix}`,
      tier: "free",
      orgs: [
        { id: organization, role: "admin", tier: "pro" },
        { id: `other-${suffix}`, role: "member", tier: "free" },
      ],
    });
    const context = await newContext(settings[2]!);
    const page = await context.newPage();
    await page.goto(`${server.origin}/`);
    const component = page.locator("keyward-keys");
    await component.evaluate(
      (element, { session, id }) => {
        element.setAttribute("organization-id", id);
        (element as HTMLElement & { token: string }).token = session;
      },
      { session: token, id: organization },
    );
    await expect.poll(() => component.locator("tbody tr").count()).toBe(1);
    expect(await component.getByLabel("Keys of").count()).toBe(0);
    expect(await component.getByRole("heading", { level: 2 }).first().textContent()).toBe(
      `Keys of ${organization}`,
    );
    await checkState(page, settings[2]!, "fixed-organization");
    await component.getByRole("button", { name: "Create key" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Name").fill("Made in the fixed organization");
    await dialog.getByRole("checkbox", { name: /profile:read/ }).check();
    await dialog.getByRole("button", { name: "Create key" }).click();
    await expect.poll(() => dialog.getByText("you will not see this key again").count()).toBe(1);
    await dialog.getByRole("button", { name: "Done, I have copied it" }).click();
    const listed = await server.keyward.keys.list({ type: "organization", id: organization });
    expect(listed.map((key) => key.name).sort()).toEqual([
      "Made by the operator",
      "Made in the fixed organization",
    ]);

    // Without `grace-periods`, the rotate confirmation offers an hour, a day and a week: the
    // server's OpenAPI document says it rotates with a grace of up to 7 days.
    await component.evaluate((element) => element.removeAttribute("grace-periods"));
    await component.getByRole("button", { name: "Rotate Made in the fixed organization" }).click();
    const grace = dialog.getByLabel("Keep the current secret working");
    expect(await grace.locator("option").allTextContents()).toEqual([
      "No, stop it at once",
      expect.stringMatching(/For 1 hour/),
      expect.stringMatching(/For 1 day/),
      expect.stringMatching(/For 7 days/),
    ]);
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect.poll(() => dialog.isVisible()).toBe(false);

    // Without the attribute, the switcher; the host's own list of organizations, with names.
    await component.evaluate((element, id) => {
      element.removeAttribute("organization-id");
      (element as HTMLElement & { organizations: unknown }).organizations = [
        { id, name: "Acme Inc.", tier: "pro" },
      ];
    }, organization);
    const switcher = component.getByLabel("Keys of");
    await expect
      .poll(() => switcher.locator("option").allTextContents())
      .toEqual(["You (your own keys)", "Acme Inc."]);
    await switcher.selectOption(organization);
    await expect
      .poll(() => component.getByRole("heading", { level: 2 }).first().textContent())
      .toBe("Keys of Acme Inc.");
    await expect.poll(() => component.locator("tbody tr").count()).toBe(2);

    // Another session, without the organization: its keys go, and the person's own are shown.
    const other = await server.session({ sub: `other-${suffix}`, tier: "free" });
    await component.evaluate((element, session) => {
      const keys = element as HTMLElement & { organizations: unknown; token: string };
      keys.organizations = undefined;
      keys.token = session;
    }, other);
    await expect.poll(() => page.getByText("No API keys yet").count()).toBe(1);
    expect(await component.getByLabel("Keys of").count()).toBe(0);
    expect(await component.getByRole("heading", { level: 2 }).first().textContent()).toBe(
      "API keys",
    );
    await context.close();
  }, 60_000);

  it("the main flow with the keyboard only: switch to the organization, create, copy, rotate with a grace, usage, disable, enable, revoke", async () => {
    const context = await newContext(settings[2]!);
    const suffix = crypto.randomUUID().slice(0, 8);
    const organization = `kb-${suffix}`;
    const token = await server.session({
      sub: `kb-${suffix}`,
      tier: "pro",
      orgs: [{ id: organization, role: "owner", tier: "enterprise" }],
    });
    const page = await signedInPage(context, token);
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());

    // The switcher: Tab to it, choose the organization with the arrow key.
    await tabToId(page, "owner");
    await page.keyboard.press("ArrowDown");
    await expect
      .poll(() =>
        page.locator("keyward-keys").getByRole("heading", { level: 2 }).first().textContent(),
      )
      .toBe(`Keys of ${organization}`);
    await expect.poll(() => page.getByText("No API keys yet").count()).toBe(1);

    // Create: name, a scope with Space, the rest left as offered, Enter on the button.
    await tabTo(page, "Create key");
    await page.keyboard.press("Enter");
    await expect.poll(() => focusedName(page)).toBe("key-name");
    await page.keyboard.type("Keyboard key");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Space");
    await tabTo(page, "Create key");
    await page.keyboard.press("Enter");
    await expect.poll(() => focusedName(page)).toBe("Copy");
    await page.keyboard.press("Enter");
    await expect.poll(() => focusedName(page)).toBe("Copied");
    const secret = await page.evaluate(() => navigator.clipboard.readText());
    expect(secret).toMatch(/^sk_live_/);
    await tabTo(page, "Done, I have copied it");
    await page.keyboard.press("Enter");
    await expect.poll(() => focusedName(page)).toBe("Create key");

    // Rotate with a grace: the choice with the arrow keys, then the button.
    await tabTo(page, "Rotate Keyboard key");
    await page.keyboard.press("Enter");
    await expect.poll(() => focusedName(page)).toBe("Cancel");
    await tabToId(page, "grace", 5);
    await page.keyboard.press("ArrowDown");
    await expect.poll(() => page.getByText("keeps working for").count()).toBe(1);
    await tabTo(page, "Rotate key", 5);
    await page.keyboard.press("Enter");
    await expect.poll(() => focusedName(page)).toBe("Copy");
    const rotated = await page.locator("keyward-keys").getByLabel("Secret key").inputValue();
    await tabTo(page, "Done, I have copied it");
    await page.keyboard.press("Enter");
    expect(await guarded(secret)).toBe(200);
    expect(await guarded(rotated)).toBe(200);

    // Usage opens with focus on its heading; the audit log is there.
    await tabTo(page, "Usage of Keyboard key");
    await page.keyboard.press("Enter");
    await expect.poll(() => focusedName(page)).toBe("Usage of “Keyboard key”");
    await expect
      .poll(() => page.locator("keyward-keys").locator(".audit-log .event-type").allTextContents())
      .toEqual(["Rotated", "Created"]);
    await tabTo(page, "Close usage", 5);
    await page.keyboard.press("Enter");

    // Disable, and focus lands on Enable; enable, and it lands on Disable.
    await tabTo(page, "Disable Keyboard key");
    await page.keyboard.press("Enter");
    await expect.poll(() => focusedName(page)).toBe("Enable Keyboard key");
    expect(await guarded(rotated)).toBe(401);
    await page.keyboard.press("Enter");
    await expect.poll(() => focusedName(page)).toBe("Disable Keyboard key");
    expect(await guarded(rotated)).toBe(200);

    // Revoke through its confirmation.
    await tabTo(page, "Revoke Keyboard key");
    await page.keyboard.press("Enter");
    await expect.poll(() => focusedName(page)).toBe("Cancel");
    await page.keyboard.press("Tab");
    expect(await focusedName(page)).toBe("Revoke key");
    await page.keyboard.press("Enter");
    // The row lost its Revoke button: focus goes to the list's heading.
    await expect.poll(() => focusedName(page)).toBe(`Keys of ${organization}`);
    expect(await guarded(rotated)).toBe(401);
    await context.close();
  }, 120_000);
});
