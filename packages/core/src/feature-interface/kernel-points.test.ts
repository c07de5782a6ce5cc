/**
 * The kernel's extension points stay few and general: at most six, and none named after a
 * feature (a point exists because two features use it; what one feature needs stays in its own
 * configuration). Both lists are read from the sources, so a new point or a new feature is counted
 * without anyone editing this test.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));
const packages = join(here, "../../..");
const repository = join(packages, "..");

/** The members of `KernelExtensions`, as its declaration lists them. */
function kernelPoints(): string[] {
  const path = join(here, "kernel-extensions.ts");
  const source = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest);
  const declaration = source.statements.find(
    (statement): statement is ts.InterfaceDeclaration =>
      ts.isInterfaceDeclaration(statement) && statement.name.text === "KernelExtensions",
  );
  if (!declaration) throw new Error("kernel-extensions.ts declares no KernelExtensions");
  return declaration.members.flatMap((member) =>
    member.name && ts.isIdentifier(member.name) ? [member.name.text] : [],
  );
}

/** Every TypeScript source file under `dir`, tests left out. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter(
      (entry) => entry.isFile() && /\.ts$/.test(entry.name) && !/\.test\.ts$/.test(entry.name),
    )
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The core's feature folders, as the dependency rules list them. */
function coreFeatureFolders(): string[] {
  const rules = readFileSync(join(repository, ".dependency-cruiser.cjs"), "utf8");
  const list = /const coreFeatures = \[([^\]]*)\]/.exec(rules)?.[1];
  if (!list) throw new Error(".dependency-cruiser.cjs lists no coreFeatures");
  return [...list.matchAll(/"([^"]+)"/g)].map((match) => match[1]!);
}

/**
 * Every feature's name: the `KeywardFeature<"name">` each feature's factory returns, in the core's
 * feature folders and in every package, and each core feature folder's name, camel-cased.
 */
function featureNames(): Set<string> {
  const names = new Set<string>();
  const folders = coreFeatureFolders();
  for (const folder of folders) {
    names.add(folder.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase()));
  }
  const roots = [
    ...folders.map((folder) => join(packages, "core/src", folder)),
    ...readdirSync(packages)
      .filter((name) => name !== "core")
      .map((name) => join(packages, name, "src")),
  ];
  for (const root of roots) {
    let files: string[];
    try {
      files = sources(root);
    } catch {
      continue; // a package without sources of its own
    }
    for (const file of files) {
      for (const match of readFileSync(file, "utf8").matchAll(/KeywardFeature<\s*"([^"]+)"/g)) {
        names.add(match[1]!);
      }
    }
  }
  return names;
}

describe("the kernel's extension points", () => {
  it("are found in the source, and the features too (the test reads what it checks)", () => {
    expect(kernelPoints()).toContain("verify");
    const features = featureNames();
    for (const known of ["events", "organizations", "lifecycle", "webhooks", "metering"]) {
      expect(features).toContain(known);
    }
  });

  it("are at most six", () => {
    expect(kernelPoints().length).toBeLessThanOrEqual(6);
  });

  it("are none named after a feature", () => {
    const features = featureNames();
    expect(kernelPoints().filter((point) => features.has(point))).toEqual([]);
  });
});
