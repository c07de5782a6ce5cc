/**
 * The docs stand alone: what the repository cites is in the repository.
 *
 * The rule, for anyone adding a doc, a README, a changeset or a comment:
 *
 * 1. **Cite nothing outside the repository.** The planning notes this project was built from
 *    (`DESIGN.md` and its sections, `STYLE.md`, the contract spec) are not shipped and a reader
 *    does not have them: state the decision itself where you would cite them ("the prefix is what
 *    tells a key from a session token"), or link a page of `docs/`. Nor does an absolute path of
 *    a machine (`/work/…`, `/home/…`) belong in a doc.
 * 2. **Every repository path cited exists.** In docs/*.md, the READMEs and the changesets: every
 *    relative markdown link (`[redis](./redis.md)`), and every inline code span that is a path into
 *    the repository (`` `packages/redis/test/fault.test.ts` ``, `` `docs/images/` ``) or names a
 *    test file (`` `hung.timing.test.ts` ``). In the comments of the TypeScript and JavaScript
 *    sources: every path that starts at a top-level folder of the repository (`docs/redis.md`,
 *    `packages/core/src/…`) and every test file named. A path may be given from the repository
 *    root, from the citing file's folder, or by its end (`redis/test/fault.test.ts`, or a test's
 *    bare file name); globs (`docs/images/ui-*.png`), placeholders (`<file>`, `{key_id}`), build
 *    output (`dist/`) and the reader's own files (`my-store.test.ts`) are not checked. Fenced code blocks are the reader's code, not
 *    citations, and are not checked.
 *
 * When a file moves or is removed, this test names every place that still cites it.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repositoryRoot } from "./code-blocks.js";

/** Every file of the checkout that git tracks or would track (new files included). */
const files = execFileSync(
  "git",
  ["ls-files", "--cached", "--others", "--exclude-standard", "-z"],
  { cwd: repositoryRoot, encoding: "utf8" },
)
  .split("\0")
  .filter((file) => file !== "");
const fileSet = new Set(files);
const topLevelFolders = [
  ...new Set(files.filter((file) => file.includes("/")).map((file) => file.split("/")[0]!)),
];

/** Documents that live outside the repository, with the pattern that finds a citation of one. */
const outsideDocuments: [string, RegExp][] = [
  ["DESIGN.md (the planning notes)", /\bDESIGN(?:\.md\b|'s\b|\b)/],
  ["STYLE.md (the style notes)", /\bSTYLE\.md\b/],
  ["the contract spec", /\bapi-key-contract\.md\b/],
  ["a machine's absolute path", /(?<![\w.:/])\/(?:work|home|Users|root)\/[\w.-]+/],
];

/** The pages whose citations are checked as markdown. */
const markdownFiles = files.filter(
  (file) =>
    /^docs\/[^/]+\.md$/.test(file) ||
    /(^|\/)README\.md$/.test(file) ||
    /^\.changeset\/[^/]+\.md$/.test(file),
);
/** The sources whose comments are checked. */
const sourceFiles = files.filter(
  (file) => /\.(ts|tsx|mts|js|mjs|cjs)$/.test(file) && !file.includes("/generated/"),
);
/** Every file checked for citations of documents outside the repository. */
const shippedAndDocs = [...markdownFiles, ...sourceFiles, "package.json", ".ci/run"].filter(
  (file) => fileSet.has(file) && file !== "scripts/docs/citations.test.ts",
);

/** Markdown without its fenced code blocks (blanked, so that line numbers stay). */
function withoutFences(text: string): string {
  return text.replace(/^```[^\n]*\n[\s\S]*?^```\s*$/gm, (block) => block.replace(/[^\n]/g, " "));
}

/** The comments of a source file (the rest blanked, so that line numbers stay). */
function commentsOf(text: string): string {
  let out = "";
  const comment =
    /\/\*[\s\S]*?\*\/|\/\/[^\n]*|`(?:\\[\s\S]|[^`\\])*`|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'/g;
  let last = 0;
  for (const match of text.matchAll(comment)) {
    out += text.slice(last, match.index).replace(/[^\n]/g, " ");
    const found = match[0];
    out += found.startsWith("/") ? found : found.replace(/[^\n]/g, " ");
    last = match.index + found.length;
  }
  return out + text.slice(last).replace(/[^\n]/g, " ");
}

const lineOf = (text: string, index: number) => text.slice(0, index).split("\n").length;

/** Whether a cited path names a file or folder of the repository, as the rule above reads it. */
function exists(cited: string, from: string): boolean {
  const clean = cited.replace(/[#?].*$/, "").replace(/[.,;:)]+$/, "");
  if (clean === "") return true;
  const folder = clean.endsWith("/");
  const candidates = [
    path.posix.normalize(path.posix.join(path.posix.dirname(from), clean)),
    path.posix.normalize(clean.replace(/^(\.\.?\/)+/, "")),
  ].map((candidate) => candidate.replace(/\/$/, ""));
  return candidates.some((candidate) =>
    folder || !/\.\w+$/.test(candidate)
      ? files.some((file) => file === candidate || file.startsWith(`${candidate}/`)) ||
        files.some((file) => file.includes(`/${candidate}/`))
      : fileSet.has(candidate) || files.some((file) => file.endsWith(`/${candidate}`)),
  );
}

/**
 * Not checked: globs and placeholders, URLs and anchors, build output (`dist/`, not in git), a
 * suffix pattern (`.timing.test.ts`) and the reader's own files in examples (`my-store.test.ts`).
 */
const skipped = (cited: string) =>
  /[*{}<>$…]|\.\.\.|^https?:|^mailto:|^#|(^|\/)dist\/|^\.\w|(^|\/)(my|your)-/.test(cited);

/** A repository path: from a top-level folder, or a test file's name. */
function looksLikeRepositoryPath(token: string): boolean {
  const first = token.replace(/^\.\//, "").split("/")[0]!;
  return (
    (token.includes("/") && topLevelFolders.includes(first) && first !== "node_modules") ||
    /^[\w./-]*\.test\.tsx?$/.test(token)
  );
}

interface Citation {
  file: string;
  line: number;
  cited: string;
}

function markdownCitations(file: string): Citation[] {
  const text = withoutFences(readFileSync(path.join(repositoryRoot, file), "utf8"));
  const found: Citation[] = [];
  for (const match of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = match[1]!;
    if (/^[a-z][a-z+.-]*:/i.test(target) || target.startsWith("#") || skipped(target)) continue;
    found.push({ file, line: lineOf(text, match.index), cited: target });
  }
  for (const match of text.matchAll(/`([^`\n]+)`/g)) {
    const token = match[1]!.trim();
    if (skipped(token) || /\s/.test(token) || !looksLikeRepositoryPath(token)) continue;
    found.push({ file, line: lineOf(text, match.index), cited: token });
  }
  return found;
}

function commentCitations(file: string): Citation[] {
  const text = commentsOf(readFileSync(path.join(repositoryRoot, file), "utf8"));
  const found: Citation[] = [];
  const folders = topLevelFolders.filter((folder) => folder !== "node_modules");
  const pattern = new RegExp(
    `(?<![\\w./@-])((?:${folders.map((f) => f.replace(/\./g, "\\.")).join("|")})/[\\w@./\\[\\]*{}<>$-]*[\\w/]|[\\w.-]+\\.test\\.tsx?)(?![\\w-])`,
    "g",
  );
  for (const match of text.matchAll(pattern)) {
    const token = match[1]!;
    if (skipped(token)) continue;
    found.push({ file, line: lineOf(text, match.index), cited: token });
  }
  return found;
}

describe("citations", () => {
  it("cite no document outside the repository", () => {
    const problems: string[] = [];
    for (const file of shippedAndDocs) {
      const text = readFileSync(path.join(repositoryRoot, file), "utf8");
      for (const [name, pattern] of outsideDocuments) {
        const global = new RegExp(pattern.source, "g");
        for (const match of text.matchAll(global)) {
          problems.push(`${file}:${lineOf(text, match.index)}: cites ${name}: "${match[0]}"`);
        }
      }
    }
    expect(problems, problems.join("\n")).toEqual([]);
  });

  it("name repository files that exist", () => {
    const citations = [
      ...markdownFiles.flatMap(markdownCitations),
      ...sourceFiles.flatMap(commentCitations),
    ];
    expect(citations.length).toBeGreaterThan(200);
    const missing = citations
      .filter(({ file, cited }) => !exists(cited, file))
      .map(({ file, line, cited }) => `${file}:${line}: ${cited} is not in the repository`);
    expect(missing, missing.join("\n")).toEqual([]);
  });

  it("would catch an outside document and a missing path", () => {
    const [, design] = outsideDocuments[0]!;
    expect(design.test("as DESIGN.md says")).toBe(true);
    expect(design.test("DESIGN's demo contract")).toBe(true);
    expect(design.test("the design of the store")).toBe(false);
    expect(exists("docs/redis.md", "README.md")).toBe(true);
    expect(exists("./redis.md", "docs/postgres.md")).toBe(true);
    expect(exists("redis/test/fault.test.ts", "docs/guarantees.md")).toBe(true);
    expect(exists("docs/no-such-page.md", "README.md")).toBe(false);
    expect(exists("./no-such-page.md", "docs/postgres.md")).toBe(false);
    expect(exists("no-such.test.ts", "docs/guarantees.md")).toBe(false);
    expect(looksLikeRepositoryPath("server.ts")).toBe(false);
    expect(looksLikeRepositoryPath("packages/core/src/index.ts")).toBe(true);
  });
});
