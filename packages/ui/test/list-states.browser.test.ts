/**
 * The honest states of `<keyward-keys>` in Chromium: loading, signed out (no token, and a 401),
 * and a list that could not load (the server down, a 403, a 429 with `Retry-After`, a 500). Each
 * shows its own message, never "No API keys yet" and never the Create button. The demo server
 * answers what it can for real (401, 403, a refused connection); a small server of the test's own
 * answers the 429 and the 5xx, which the demo cannot be made to give on demand.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningExample, startExample } from "../../../examples/shared/test/run-example.js";
import { type AnsweringServer, closedPort, startAnsweringServer } from "./answering-server.js";
import { axeViolations, focusedName, launchChromium, runBrowserTests } from "./browser.js";

const emptyText = "No API keys yet";

describe.runIf(runBrowserTests)("<keyward-keys> states in Chromium", () => {
  let demo: RunningExample;
  let answering: AnsweringServer;
  let browser: Browser;
  let context: BrowserContext;

  beforeAll(async () => {
    [demo, answering, browser] = await Promise.all([
      startExample("fetch"),
      startAnsweringServer({
        "rate-limited": {
          status: 429,
          headers: { "retry-after": "120" },
          body: { detail: "Rate limit exceeded", code: "rate_limited" },
        },
        internal: { status: 500, body: { detail: "Internal server error", code: "internal" } },
        "bad-gateway": { status: 502, body: undefined },
        "role-not-permitted": {
          status: 403,
          body: {
            detail: "Your role in the organization does not permit this action",
            code: "role_not_permitted",
          },
        },
      }),
      launchChromium(),
    ]);
    context = await browser.newContext({
      viewport: { width: 1000, height: 700 },
      locale: "en-GB",
      timezoneId: "UTC",
    });
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await Promise.all([demo?.stop(), answering?.close()]);
  });

  const element = (page: Page) => page.locator("keyward-keys");

  /** A page whose element has recorded every `keyward-error`, its token not yet set. */
  async function open(origin: string): Promise<Page> {
    const page = await context.newPage();
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => customElements.get("keyward-keys") !== undefined);
    await page.evaluate(() => {
      const seen: unknown[] = [];
      (window as unknown as { keywardErrors: unknown[] }).keywardErrors = seen;
      document.addEventListener("keyward-error", (event) =>
        seen.push((event as CustomEvent).detail),
      );
    });
    return page;
  }

  const reportedErrors = (page: Page) =>
    page.evaluate(() => (window as unknown as { keywardErrors: unknown[] }).keywardErrors);

  /** Sets properties on the element, as a host page does. */
  function configure(page: Page, properties: Record<string, unknown>): Promise<void> {
    return page.evaluate((values) => {
      Object.assign(document.querySelector("keyward-keys")!, values);
    }, properties);
  }

  /** A session token minted by the demo's own "act as" endpoint. */
  async function demoSession(): Promise<string> {
    const response = await fetch(`${demo.origin}/demo/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ sub: `states-${crypto.randomUUID().slice(0, 8)}`, tier: "pro" }),
    });
    return ((await response.json()) as { token: string }).token;
  }

  /** The state's text shows; no empty state and no Create button beside it; axe finds nothing. */
  async function expectState(page: Page, selector: string, text: string | RegExp): Promise<void> {
    const state = element(page).locator(selector);
    await expect.poll(() => state.count()).toBe(1);
    expect(await state.textContent()).toMatch(text);
    expect(await page.getByText(emptyText).count(), "the empty state").toBe(0);
    expect(await page.getByRole("button", { name: "Create key" }).count(), "Create").toBe(0);
    const violations = await axeViolations(page);
    expect(violations, JSON.stringify(violations, null, 2)).toEqual([]);
  }

  it("without a token: signed out, no create form, nothing called", async () => {
    const page = await open(demo.origin);
    await expectState(page, "#state-signed-out", "You are signed out");
    expect(await reportedErrors(page)).toEqual([]);
    // The wording is the host's to change, and changes what is on screen at once.
    await configure(page, { messages: { states: { signedOut: "Vous êtes déconnecté." } } });
    await expect
      .poll(() => element(page).locator("#state-signed-out").textContent())
      .toMatch(/^\s*Vous êtes déconnecté\.\s*$/);
    await page.close();
  });

  it("a 401 from the real server (a token it refuses) shows the signed-out state", async () => {
    const page = await open(demo.origin);
    await configure(page, { token: "not-a-session-token" });
    await expectState(page, "#state-signed-out", /session has expired or is not valid/);
    expect(await reportedErrors(page)).toContainEqual(
      expect.objectContaining({ status: 401, code: "invalid_token" }),
    );
    await page.close();
  });

  it("a session that expires while a dialog is open: the dialog says so, the list signs out", async () => {
    const page = await open(demo.origin);
    const session = await demoSession();
    // The host's token source, changed behind the element's back as a session store would be.
    await page.evaluate((token) => {
      const current = { token };
      (window as unknown as { session: typeof current }).session = current;
      document.querySelector("keyward-keys")!.getToken = () => current.token;
    }, session);
    await expect.poll(() => page.getByText(emptyText).count()).toBe(1);
    await page.getByRole("button", { name: "Create key" }).click();
    await page.evaluate(() => {
      (window as unknown as { session: { token: string } }).session.token = "expired";
    });
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Name").fill("late");
    await dialog.getByRole("checkbox", { name: /profile:read/ }).check();
    await dialog.getByRole("button", { name: "Create key" }).click();
    await expect.poll(() => dialog.getByRole("alert").textContent()).toMatch(/session has expired/);
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expectState(page, "#state-signed-out", /session has expired/);
    await page.close();
  });

  it("the server down (connection refused): its message and Try again, which recovers", async () => {
    const page = await open(demo.origin);
    const token = await demoSession();
    const port = await closedPort();
    await configure(page, { basePath: `http://127.0.0.1:${port}/api/v1/api-keys`, token });
    await expectState(page, "#state-failed", /Could not reach the server/);
    expect(await reportedErrors(page)).toContainEqual(expect.objectContaining({ status: 0 }));
    // Back to the real server: the list loads, and only now is it empty.
    await element(page).getByRole("button", { name: "Try again" }).click();
    await expect.poll(() => focusedName(page)).toBe("Try again");
    await configure(page, { basePath: "/api/v1/api-keys" });
    await expect.poll(() => page.getByText(emptyText).count()).toBe(1);
    expect(await page.getByRole("button", { name: "Create key" }).count()).toBe(1);
    expect(await element(page).locator("#state-failed").count()).toBe(0);
    await page.close();
  });

  it("a 403 from the real server (an API key used as the session) says what to do", async () => {
    const page = await open(demo.origin);
    const session = await demoSession();
    const created = await fetch(`${demo.origin}/api/v1/api-keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${session}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "misused", scopes: ["profile:read"], tier: "pro" }),
    });
    const { key } = (await created.json()) as { key: string };
    await configure(page, { token: key });
    await expectState(page, "#state-failed", /API keys cannot manage API keys/);
    expect(await reportedErrors(page)).toContainEqual(
      expect.objectContaining({ status: 403, code: "api_key_not_allowed" }),
    );
    await page.close();
  });

  it("a 403 of another code, from a small server, in its own words", async () => {
    const page = await open(answering.origin);
    await configure(page, { basePath: answering.basePath("role-not-permitted"), token: "t" });
    await expectState(page, "#state-failed", /Your role in the organization does not allow this/);
    await page.close();
  });

  it("a 429 with Retry-After says when to try again; Try again asks again", async () => {
    const page = await open(answering.origin);
    await configure(page, { basePath: answering.basePath("rate-limited"), token: "t" });
    await expectState(
      page,
      "#state-failed",
      "Too many requests in a short time. You can try again in 2 minutes.",
    );
    const before = answering.calls.get("rate-limited") ?? 0;
    await element(page).getByRole("button", { name: "Try again" }).click();
    await expect.poll(() => answering.calls.get("rate-limited") ?? 0).toBeGreaterThan(before);
    // Refused again: the message is back, and focus with it on the button, not lost to the page.
    await expect.poll(() => focusedName(page)).toBe("Try again");
    expect(await element(page).locator("#state-failed").textContent()).toMatch(/in 2 minutes/);
    expect(await page.getByText(emptyText).count()).toBe(0);
    await page.close();
  });

  it("the host's messages, merged over the defaults, translate a state and the time to retry", async () => {
    const page = await open(answering.origin);
    await configure(page, {
      locale: "fr",
      messages: {
        errors: { rate_limited: "Trop de requêtes. {retry}" },
        states: { retryIn: "Réessayez {retry}.", tryAgain: "Réessayer" },
      },
      basePath: answering.basePath("rate-limited"),
      token: "t",
    });
    await expect
      .poll(() => element(page).locator("#state-failed p").textContent())
      .toBe("Trop de requêtes. Réessayez dans 2 minutes.");
    expect(await element(page).getByRole("button", { name: "Réessayer" }).count()).toBe(1);
    // What the host did not override keeps its default.
    await configure(page, { basePath: answering.basePath("internal") });
    await expect
      .poll(() => element(page).locator("#state-failed p").textContent())
      .toMatch(/Something went wrong on the server/);
    await page.close();
  });

  it("a 500, and a 502 without a body, each show their message, never the empty state", async () => {
    const page = await open(answering.origin);
    await configure(page, { basePath: answering.basePath("internal"), token: "t" });
    await expectState(
      page,
      "#state-failed",
      "Something went wrong on the server. Try again later.",
    );
    await configure(page, { basePath: answering.basePath("bad-gateway") });
    await expectState(page, "#state-failed", /The server is having trouble/);
    expect(await reportedErrors(page)).toEqual([
      expect.objectContaining({ status: 500, code: "internal" }),
      expect.objectContaining({ status: 502, code: undefined }),
    ]);
    await page.close();
  });

  it("shows the loading state, without the Create button, until the list answers", async () => {
    const page = await open(demo.origin);
    // A token source that answers only when the test says so: the list is loading until then.
    await page.evaluate(() => {
      const keys = document.querySelector("keyward-keys")!;
      const token = new Promise<string>((resolve) => {
        (window as unknown as { releaseToken: (token: string) => void }).releaseToken = resolve;
      });
      keys.getToken = () => token;
    });
    await expectState(page, "#state-loading", "Loading keys…");
    const token = await demoSession();
    await page.evaluate((value) => {
      (window as unknown as { releaseToken: (token: string) => void }).releaseToken(value);
    }, token);
    await expect.poll(() => page.getByText(emptyText).count()).toBe(1);
    await page.close();
  });
});
