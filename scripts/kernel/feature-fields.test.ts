/**
 * Features own their data: the kernel and the stores keep a feature's key fields without naming
 * them (docs/architecture.md, "Key fields").
 *
 * The field names are read from the features themselves: every feature is built (with the
 * smallest configuration that turns on everything it declares) and the names it declares at the
 * kernel's `fields` point are collected. Then every source file of the kernel (`@keyward/core`
 * outside the feature folders `.dependency-cruiser.cjs` lists) and of the stores (PostgreSQL,
 * Redis, Cloudflare) is searched for them: as a word in code (strings, SQL and Lua included, also
 * in snake_case for SQL columns), and in comments where a code span names one (`` `allowedIps` ``;
 * a plain English "resources" in a comment is prose, not a name).
 *
 * The floor: the kernel knows the restricting fields (`keys/restricting-fields.ts`) for the one
 * case no feature can speak for them, when the feature that declares them is not listed: a create
 * body naming one is refused, and a key stored with one is refused, never waved through. And the
 * Durable Objects store (`packages/cloudflare/src/store/cloudflare-store.ts`) knows how budgets
 * name a key's own budget bucket (`budget:key:<id>`), to count it in the key's object when limits
 * are kept per key: a debt, until a limit layer says itself whose state it is.
 */
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { agentTokens } from "../../packages/core/src/features/agent-tokens/index.js";
import { budgets } from "../../packages/core/src/features/budgets/index.js";
import { events } from "../../packages/core/src/features/events/index.js";
import { imports } from "../../packages/core/src/features/imports/index.js";
import { lifecycle } from "../../packages/core/src/features/lifecycle/index.js";
import { openapi } from "../../packages/core/src/features/openapi/index.js";
import { organizations } from "../../packages/core/src/features/organizations/index.js";
import { permissions } from "../../packages/core/src/features/permissions/index.js";
import { recoverable } from "../../packages/core/src/features/recoverable/index.js";
import { secretScanning } from "../../packages/core/src/features/secret-scanning/index.js";
import type { KeywardFeature } from "../../packages/core/src/index.js";
import { memoryLedger, metering } from "../../packages/metering/src/index.js";
import { otel } from "../../packages/otel/src/index.js";
import { webhooks } from "../../packages/webhooks/src/index.js";
import { repositoryRoot } from "../docs/code-blocks.js";

/** The most kernel and store files that may name a feature's field (the floor reached). */
const floor = 2;

const require = createRequire(import.meta.url);
const dependencyRules = require("../../.dependency-cruiser.cjs") as {
  forbidden: { name: string; to: { path?: string } }[];
};

/** The core feature folders, as the dependency rules list them. */
const featureFolders = (() => {
  const rule = dependencyRules.forbidden.find((r) => r.name === "kernel-imports-no-feature");
  const folders = /\(([^)]+)\)/.exec(rule?.to.path ?? "")?.[1]?.split("|");
  if (!folders?.length) throw new Error("no feature folders in .dependency-cruiser.cjs");
  return folders;
})();

const kek = btoa(String.fromCharCode(...new Uint8Array(32).fill(7)));

/**
 * Every feature, built so that it declares all the fields it can: the core ones by folder (each
 * folder of the dependency rules must have one), and the packages'.
 */
const featuresByFolder: Record<string, () => KeywardFeature<string, unknown>> = {
  "agent-tokens": () => agentTokens(),
  budgets: () => budgets(),
  events: () => events(),
  imports: () => imports(),
  lifecycle: () => lifecycle(),
  openapi: () => openapi(),
  organizations: () => organizations({ memberships: () => [] }),
  permissions: () => permissions({ lastUsedAddress: true }),
  recoverable: () => recoverable({ keyRing: { current: "k1", keys: { k1: kek } } }),
  "secret-scanning": () => secretScanning(),
};
const packageFeatures: (() => KeywardFeature<string, unknown>)[] = [
  () => otel(),
  () => metering({ ledger: memoryLedger() }),
  () =>
    webhooks({
      endpoints: [
        { id: "a", url: "https://example.com/h", secret: `whsec_${btoa("k".repeat(32))}` },
      ],
    }),
];

/** Every key field a feature declares. */
function declaredFields(): string[] {
  const names = new Set<string>();
  for (const make of [...Object.values(featuresByFolder), ...packageFeatures]) {
    for (const field of make().extends?.fields ?? []) names.add(field.name);
  }
  return [...names].sort();
}

/** The non-test TypeScript files under `folder` (repository-relative), recursively. */
function sourcesUnder(folder: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(path.join(repositoryRoot, folder), { withFileTypes: true })) {
    const relative = `${folder}/${entry.name}`;
    if (entry.isDirectory()) found.push(...sourcesUnder(relative));
    else if (/\.ts$/.test(entry.name) && !/\.test\.ts$/.test(entry.name)) found.push(relative);
  }
  return found;
}

/** The kernel's and the stores' source files. */
function kernelAndStoreFiles(): string[] {
  const feature = new RegExp(`^packages/core/src/features/(${featureFolders.join("|")})/`);
  return [
    ...sourcesUnder("packages/core/src").filter((file) => !feature.test(file)),
    ...sourcesUnder("packages/postgres/src"),
    ...sourcesUnder("packages/redis/src"),
    ...sourcesUnder("packages/cloudflare/src"),
  ];
}

/** `text` split into its comments and the rest (code, strings, SQL and Lua in templates). */
function split(text: string): { code: string; comments: string } {
  let code = "";
  let comments = "";
  let last = 0;
  const pattern =
    /\/\*[\s\S]*?\*\/|\/\/[^\n]*|`(?:\\[\s\S]|[^`\\])*`|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'/g;
  for (const match of text.matchAll(pattern)) {
    code += text.slice(last, match.index);
    if (match[0].startsWith("/")) comments += `${match[0]}\n`;
    else code += match[0];
    last = match.index + match[0].length;
  }
  return { code: code + text.slice(last), comments };
}

const snakeCase = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The declared fields `file` names, as the header says. */
function namedIn(file: string, fields: readonly string[]): string[] {
  const { code, comments } = split(readFileSync(path.join(repositoryRoot, file), "utf8"));
  const spans = [...comments.matchAll(/`[^`\n]*`/g)].map((m) => m[0]).join("\n");
  return fields.filter((name) => {
    const word = new RegExp(`\\b(${name}|${snakeCase(name)})\\b`);
    return word.test(code) || word.test(spans);
  });
}

describe("the kernel and the stores name no feature's field", () => {
  it("builds every core feature folder's feature", () => {
    expect(Object.keys(featuresByFolder).sort()).toEqual([...featureFolders].sort());
  });

  it("finds the fields the features declare", () => {
    // A sanity check of the collection, not the list the scan uses.
    expect(declaredFields()).toEqual(expect.arrayContaining(["allowedIps", "resources"]));
  });

  it(`at most ${floor} file(s) of the kernel and the stores name one`, () => {
    const fields = declaredFields();
    const naming = kernelAndStoreFiles()
      .map((file) => ({ file, names: namedIn(file, fields) }))
      .filter(({ names }) => names.length > 0);
    const listed = naming.map(({ file, names }) => `${file}: ${names.join(", ")}`).join("\n");
    expect(naming.length, `files naming a feature's field:\n${listed}`).toBeLessThanOrEqual(floor);
  });
});
