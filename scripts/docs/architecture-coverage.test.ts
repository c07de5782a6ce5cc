/**
 * The docs that map the system cannot drift from it: every extension point of the kernel
 * (`KernelExtensions`), every entry point a package exports and every feature appears in
 * docs/architecture.md, and each package's entry points in its own README (the core's features in
 * the core's). A point, export or feature added without its line fails here.
 */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const root = new URL("../../", import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), "utf8");
const architecture = read("docs/architecture.md");

/** The names of `KernelExtensions`' members, read from its source. */
function extensionPoints(): string[] {
  const source = read("packages/core/src/feature-interface/kernel-extensions.ts");
  const body = source.slice(source.indexOf("export interface KernelExtensions {"));
  const end = body.indexOf("\n}");
  return [...body.slice(0, end).matchAll(/^ {2}(\w+)\?:/gm)].map((match) => match[1]!);
}

/** Every package's entry points, by package folder: `@keyward/core/toolkit`… */
function entryPoints(): { folder: string; names: string[] }[] {
  return readdirSync(new URL("packages/", root)).flatMap((folder) => {
    let manifest: { name: string; exports?: Record<string, unknown>; private?: boolean };
    try {
      manifest = JSON.parse(read(`packages/${folder}/package.json`));
    } catch {
      return [];
    }
    if (manifest.private) return [];
    const names = Object.keys(manifest.exports ?? { ".": "" })
      .filter((path) => path !== "./package.json")
      .map((path) => (path === "." ? manifest.name : `${manifest.name}${path.slice(1)}`));
    return [{ folder, names }];
  });
}

describe("docs/architecture.md and the READMEs name every point and entry point", () => {
  it("finds the kernel's extension points (and there are at most seven)", () => {
    const points = extensionPoints();
    expect(points.length).toBeGreaterThan(0);
    expect(points.length).toBeLessThanOrEqual(7);
    expect(points.filter((point) => !architecture.includes(`\`${point}\``))).toEqual([]);
  });

  it("finds every package's entry points in docs/architecture.md and in its README", () => {
    const missing: string[] = [];
    for (const { folder, names } of entryPoints()) {
      const readme = read(`packages/${folder}/README.md`);
      for (const name of names) {
        if (!architecture.includes(`\`${name}\``)) missing.push(`${name} in docs/architecture.md`);
        if (!readme.includes(`\`${name}\``) && !readme.includes(`"${name}"`)) {
          missing.push(`${name} in packages/${folder}/README.md`);
        }
      }
    }
    expect(missing).toEqual([]);
  });
});
