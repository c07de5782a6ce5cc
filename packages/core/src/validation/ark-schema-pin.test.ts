/**
 * `@keyward/core` pins `@ark/schema` exactly (docs/openapi.md, "The `@ark/schema` pin"): arktype's
 * engine is 0.x and arktype itself depends on one exact version. The pin moves together with the
 * `arktype` the tests use, so the engine Keyward builds its nodes with is the one those tests (and
 * a host on that arktype) run: one copy, not two.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

// The packages as core resolves them (its node_modules), read by path: neither exports package.json.
const manifest = (path: string) =>
  JSON.parse(readFileSync(new URL(path, import.meta.url), "utf8")) as {
    version: string;
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };

describe("the @ark/schema pin", () => {
  const core = manifest("../../package.json");
  const pinned = core.dependencies?.["@ark/schema"];

  it("is one exact version, not a range", () => {
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it("is the @ark/schema of the arktype the tests use, and the one installed", () => {
    const arktype = manifest("../../node_modules/arktype/package.json");
    expect(arktype.dependencies?.["@ark/schema"]).toBe(pinned);
    expect(manifest("../../node_modules/@ark/schema/package.json").version).toBe(pinned);
  });
});
