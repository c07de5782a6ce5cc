/**
 * The demo reads `KEYWARD_JWT_SECRET` (docs/examples.md, "Configuration"); library snippets read the
 * host's own `JWT_SECRET`. A page that sends readers to the demo and also shows `JWT_SECRET` must
 * say which is which, and what the docs say about the demo's walkthrough names the demo's variable.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repositoryRoot } from "./code-blocks.js";

const pages = [
  "README.md",
  ...readdirSync(path.join(repositoryRoot, "docs")).map((name) => `docs/${name}`),
].filter((file) => file.endsWith(".md"));
const read = (file: string) => readFileSync(path.join(repositoryRoot, file), "utf8");
/** `JWT_SECRET` not preceded by a prefix such as `KEYWARD_` or `SUPABASE_`. */
const hostSecret = /(?<![A-Z_])JWT_SECRET/;

describe("the demo's secret in the docs", () => {
  const demoPages = pages.filter((file) => /pnpm@10 start\b/.test(read(file)));

  it.each(demoPages.filter((file) => hostSecret.test(read(file))))(
    "%s: says JWT_SECRET is the application's own variable and the demo reads KEYWARD_JWT_SECRET",
    (file) => {
      expect(read(file)).toContain(
        "`JWT_SECRET` in the snippets on this page is your application's own variable",
      );
    },
  );

  it.each(pages)("%s: every line about the demo's walkthrough names KEYWARD_JWT_SECRET", (file) => {
    for (const line of read(file).split("\n")) {
      if (/walkthrough/i.test(line)) expect(line).not.toMatch(hostSecret);
    }
  });
});
