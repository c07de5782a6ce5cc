/**
 * Chromium for the UI tests: Debian's `/usr/bin/chromium` driven by `playwright-core` (which
 * downloads no browser of its own), axe-core injected into the page, and what the keyboard tests
 * need to know about focus inside shadow roots.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { type Browser, chromium, type Page } from "playwright-core";

export const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Chromium is installed by `.ci/run` (apt-get install chromium); in CI a missing one fails. */
export const hasChromium = existsSync(chromiumPath);
if (!hasChromium && !process.env.CI) {
  console.warn(
    `[ui] ${chromiumPath} is missing: the browser tests are skipped (apt-get install chromium)`,
  );
}
export const runBrowserTests = hasChromium || Boolean(process.env.CI);

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    // Root in a container has no user namespace for Chromium's sandbox.
    args: ["--no-sandbox", "--disable-dev-shm-usage"],
  });
}

const axeSource = readFileSync(
  createRequire(import.meta.url).resolve("axe-core/axe.min.js"),
  "utf8",
);

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[]; failureSummary?: string }[];
}

/** axe-core's violations on the page as it is now, shadow roots included (WCAG 2.x A and AA). */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => "axe" in window))) {
    await page.addScriptTag({ content: axeSource });
  }
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (...args: unknown[]) => Promise<unknown> } })
      .axe;
    const results = (await axe.run(document, {
      runOnly: {
        type: "tag",
        values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"],
      },
    })) as { violations: AxeViolation[] };
    return results.violations.map(({ id, impact, help, nodes }) => ({
      id,
      impact,
      help,
      nodes: nodes.map(({ target, failureSummary }) => ({ target, failureSummary })),
    }));
  });
}

/** The focused element, looking through open shadow roots: its label, text or id. */
export function focusedName(page: Page): Promise<string> {
  return page.evaluate(() => {
    let element: Element | null = document.activeElement;
    while (element?.shadowRoot?.activeElement) element = element.shadowRoot.activeElement;
    if (!element || element === document.body) return "";
    return (
      element.getAttribute("aria-label") ??
      (element.textContent?.trim() || element.id || element.tagName.toLowerCase())
    );
  });
}

/** Presses Tab (only the keyboard) until the focused element is `name`; fails after `limit`. */
export async function tabTo(page: Page, name: string, limit = 40): Promise<void> {
  const seen: string[] = [];
  for (let press = 0; press < limit; press++) {
    const focused = await focusedName(page);
    if (focused === name) return;
    seen.push(focused);
    await page.keyboard.press("Tab");
  }
  throw new Error(`Tab never reached "${name}"; focus went through: ${seen.join(" → ")}`);
}
