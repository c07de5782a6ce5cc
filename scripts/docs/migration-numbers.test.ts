/**
 * Migration numbers have one source, `packages/postgres/src/schema/migrations.ts`. docs/postgres.md
 * lists every migration with its number and name, and a page that names a migration by its number
 * ("migration 7") must name one that does what the page says it does: the paragraph of each mention
 * must hold a word of that migration's subject, so a renumbered or misremembered migration fails
 * here instead of in a reader's database.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { migrationStatements } from "../../packages/postgres/src/schema/migrations.js";
import { repositoryRoot } from "./code-blocks.js";

const migrations = migrationStatements({});
const read = (file: string) => readFileSync(path.join(repositoryRoot, file), "utf8");

/**
 * What a sentence mentioning each migration must also mention (any one of the words). Version 1 is
 * the first release's whole schema (the pre-release migrations collapsed into it); a migration
 * added later gets its own entry here, with the words of what it changes.
 */
const subjects: Record<number, readonly string[]> = {
  1: ["first schema"],
};

describe("migration numbers in the docs", () => {
  it("docs/postgres.md lists every migration with its number and name", () => {
    const page = read("docs/postgres.md");
    for (const { version, name } of migrations) {
      expect(page, `version ${version}`).toContain(`| ${version} | ${name} |`);
    }
    expect(Object.keys(subjects).map(Number)).toEqual(migrations.map((m) => m.version));
  });

  const pages = readdirSync(path.join(repositoryRoot, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`);

  it.each(pages)("%s names each migration by the number it has", (file) => {
    const wrong: string[] = [];
    // A paragraph (or a table row) is the context: docs wrap sentences across lines.
    for (const paragraph of read(file).split(/\n\s*\n|\n(?=\|)/)) {
      for (const match of paragraph.matchAll(/\bmigration (\d+)\b/gi)) {
        const version = Number(match[1]);
        const words = subjects[version];
        const text = paragraph.toLowerCase();
        if (!words?.some((word) => text.includes(word))) {
          wrong.push(
            `migration ${version}: ${paragraph.trim().replace(/\s+/g, " ").slice(0, 160)}`,
          );
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});
