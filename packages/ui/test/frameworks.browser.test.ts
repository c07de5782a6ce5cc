/**
 * The React and Vue usage docs/ui.md prints, run as printed: the React 19 page, and the React 18
 * one with its ref, are bundled with esbuild against React 19 and React 18; the Vue component is
 * built by Vite with the `vite.config.ts` the page shows. Each is loaded in Chromium from the origin
 * of a real Keyward server configured as the demo is: the element gets the session's token through
 * the framework (a property, a ref, a binding), lists the person's keys with it, and the page's
 * event handlers run.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build as esbuild } from "esbuild";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeBlocks } from "../../../scripts/docs/code-blocks.js";
import { launchChromium, runBrowserTests } from "./browser.js";
import { type KeywardServer, startKeywardServer } from "./keyward-server.js";

const uiDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const blocks = codeBlocks("docs/ui.md");
const block = (language: string, marker: string): string => {
  const found = blocks.find((each) => each.language === language && each.code.includes(marker));
  if (!found) throw new Error(`docs/ui.md has no ${language} block with ${marker}`);
  return found.code;
};
const react19Page = block("tsx", "onkeyward-key-created");
const react18Page = block("tsx", "useRef");
const viteConfig = block("ts", "@vitejs/plugin-vue");
const vueComponent = block("vue", "<keyward-keys");

/** The reader's own modules the snippets import: what each page leaves to the application. */
const readerModules = {
  "session.ts": `export const session = { get accessToken(): string { return (window as any).sessionToken; } };
export function useSession() { return session; }`,
  "analytics.ts": `export function track(...args: unknown[]) { ((window as any).tracked ??= []).push(args); }`,
  "notifications.ts": `export function notify(message: string) { ((window as any).notified ??= []).push(message); }`,
};

// Inside the package, so that react, vue and @keyward/ui resolve from its node_modules.
const work = mkdtempSync(path.join(uiDir, ".frameworks-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function app(name: string, files: Record<string, string>): string {
  const dir = path.join(work, name);
  mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries({ ...readerModules, ...files })) {
    writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

async function reactBundle(name: string, page: string, version: 18 | 19): Promise<string> {
  const dir = app(name, {
    "page.tsx": page,
    "main.tsx": `import { createRoot } from "react-dom/client";
import { ApiKeysPage } from "./page";
createRoot(document.getElementById("root")!).render(<ApiKeysPage />);`,
  });
  const result = await esbuild({
    entryPoints: [path.join(dir, "main.tsx")],
    bundle: true,
    write: false,
    format: "esm",
    jsx: "automatic",
    conditions: ["@keyward/source", "browser"],
    define: { "process.env.NODE_ENV": '"production"' },
    // React 18 from its alias packages: `react`, `react/jsx-runtime` and `react-dom/client`,
    // resolved (as esbuild resolves aliases) from the working directory: this package's.
    ...(version === 18 ? { alias: { react: "react-18", "react-dom": "react-dom-18" } } : {}),
    absWorkingDir: uiDir,
    logLevel: "silent",
  });
  const text = result.outputFiles[0]!.text;
  // The React it was bundled with (React's own version string is in the bundle).
  if (!new RegExp(`"${version}\\.\\d+\\.\\d+"`).test(text)) {
    throw new Error(`the ${name} bundle holds no React ${version}`);
  }
  return text;
}

async function vueBuild(): Promise<Record<string, string>> {
  const dir = app("vue", {
    "vite.config.ts": viteConfig,
    "App.vue": vueComponent,
    "main.ts": `import { createApp } from "vue";
import App from "./App.vue";
createApp(App).mount("#root");`,
    "index.html": `<!doctype html><html lang="en"><body><div id="root"></div><script type="module" src="./main.ts"></script></body></html>`,
  });
  const { build } = await import("vite");
  await build({
    root: dir,
    configFile: path.join(dir, "vite.config.ts"),
    base: "/vue/",
    logLevel: "silent",
    resolve: { conditions: ["@keyward/source", "browser", "module", "import", "default"] },
    define: { "process.env.NODE_ENV": '"production"' },
    build: { outDir: path.join(dir, "dist"), emptyOutDir: true, minify: false },
  });
  const files: Record<string, string> = {};
  const collect = (folder: string, prefix: string) => {
    for (const entry of readdirSync(path.join(dir, "dist", folder), { withFileTypes: true })) {
      const relative = path.join(folder, entry.name);
      if (entry.isDirectory()) collect(relative, prefix);
      else files[`${prefix}${relative}`] = readFileSync(path.join(dir, "dist", relative), "utf8");
    }
  };
  collect("", "/vue/");
  return files;
}

describe.runIf(runBrowserTests)("docs/ui.md's React and Vue usage, as printed", () => {
  let server: KeywardServer;
  let browser: Browser;
  let token: string;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startKeywardServer(), launchChromium()]);
    token = await server.session({
      sub: `frameworks-${crypto.randomUUID().slice(0, 8)}`,
      tier: "pro",
    });
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** A page of the server's origin serving `files`, with the session token set before any script. */
  async function open(files: Record<string, string>, entry: string): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.addInitScript((value) => {
      (window as unknown as { sessionToken: string }).sessionToken = value;
    }, token);
    for (const [file, body] of Object.entries(files)) {
      await page.route(`${server.origin}${file}`, (route) =>
        route.fulfill({
          body,
          contentType: file.endsWith(".html") ? "text/html" : "text/javascript",
        }),
      );
    }
    await page.goto(`${server.origin}${entry}`);
    await page.waitForFunction(() => customElements.get("keyward-keys") !== undefined);
    // Listed with the token: the empty state of a signed-in person, not the signed-out one.
    await expect.poll(() => page.getByText("No API keys yet").count()).toBe(1);
    expect(errors).toEqual([]);
    return page;
  }

  const reactPage = (script: string) => ({
    "/react.html": `<!doctype html><html lang="en"><body><div id="root"></div><script type="module" src="/react.js"></script></body></html>`,
    "/react.js": script,
  });

  const dispatch = (page: Page, type: string, detail: unknown) =>
    page.evaluate(
      ([eventType, eventDetail]) =>
        document
          .querySelector("keyward-keys")!
          .dispatchEvent(new CustomEvent(eventType as string, { detail: eventDetail })),
      [type, detail] as const,
    );

  it("React 19: the token as a property, the created-key handler as an `on…` prop", async () => {
    const page = await open(
      reactPage(await reactBundle("react19", react19Page, 19)),
      "/react.html",
    );
    expect(
      await page.evaluate(
        () => (document.querySelector("keyward-keys") as unknown as { token: string }).token,
      ),
    ).toBe(token);
    await dispatch(page, "keyward-key-created", { key: { id: "key_created_in_test" } });
    expect(
      await page.evaluate(() => (window as unknown as { tracked: unknown[] }).tracked),
    ).toEqual([["api_key_created", "key_created_in_test"]]);
  }, 60_000);

  it("React 18: getToken and the listener set through the ref", async () => {
    const page = await open(
      reactPage(await reactBundle("react18", react18Page, 18)),
      "/react.html",
    );
    expect(
      await page.evaluate(() =>
        (document.querySelector("keyward-keys") as unknown as { getToken(): string }).getToken(),
      ),
    ).toBe(token);
    await dispatch(page, "keyward-key-created", { key: { id: "key_x" } });
    expect(
      await page.evaluate(() => (window as unknown as { tracked: unknown[] }).tracked),
    ).toEqual([["api_key_created"]]);
  }, 60_000);

  it("Vue, built by Vite with the config shown: getToken bound as a property, @keyward-key-revoked handled", async () => {
    const page = await open(await vueBuild(), "/vue/index.html");
    expect(
      await page.evaluate(() =>
        (document.querySelector("keyward-keys") as unknown as { getToken(): string }).getToken(),
      ),
    ).toBe(token);
    await dispatch(page, "keyward-key-revoked", { id: "key_x" });
    expect(
      await page.evaluate(() => (window as unknown as { notified: unknown[] }).notified),
    ).toEqual(["Key revoked"]);
  }, 90_000);
});
