/**
 * What a package's tarball holds, and the rules for it (docs/releasing.md, "What a package ships"):
 *
 * - no tests: no `*.test.ts`, `*.test-d.ts`, nor a `test/` folder;
 * - source maps carry no copy of the source (`sourcesContent`): they point into `src/`, which
 *   ships, and a copy doubled the source's weight;
 * - every source a map (JavaScript or declaration) points to is in the tarball, so a stack trace
 *   and an editor's "go to definition" lead to a file the user has;
 * - the unpacked size stays under the package's budget (`budgets`, default `defaultBudget`).
 */

import path from "node:path";
import { gunzipSync } from "node:zlib";

/** Unpacked bytes a package may weigh; measured sizes and why in docs/releasing.md. */
export const budgets = { "@keyward/core": 2_900_000, "@keyward/testing": 1_200_000 };
export const defaultBudget = 600_000;

/** The files of a `.tgz` (npm's layout: everything under `package/`), with their contents. */
export function tarballFiles(bytes) {
  const tar = gunzipSync(bytes);
  const files = [];
  let longName;
  for (let offset = 0; offset + 512 <= tar.length; ) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((byte) => byte === 0)) break;
    const text = (start, end) => header.subarray(start, end).toString("utf8").replace(/\0.*$/s, "");
    const size = Number.parseInt(text(124, 136).trim() || "0", 8);
    const type = text(156, 157);
    const body = tar.subarray(offset + 512, offset + 512 + size);
    const prefix = text(345, 500);
    const name = longName ?? (prefix ? `${prefix}/${text(0, 100)}` : text(0, 100));
    longName = undefined;
    if (type === "x") {
      // A pax header: its `path` record names the next entry.
      const record = /\d+ path=([^\n]*)\n/.exec(body.toString("utf8"));
      if (record) longName = record[1];
    } else if (type === "0" || type === "") {
      files.push({ path: name.replace(/^package\//, ""), size, content: body });
    }
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

/** The rules above, broken: one line each; none for a clean package. */
export function contentsProblems(name, files) {
  const problems = [];
  const paths = new Set(files.map((file) => file.path));
  for (const file of files) {
    if (/\.test(-d)?\.tsx?$/.test(file.path) || /(^|\/)test\//.test(file.path)) {
      problems.push(`${name}: ships a test, ${file.path}`);
    }
    if (!file.path.endsWith(".map")) continue;
    const map = JSON.parse(file.content.toString("utf8"));
    if (Array.isArray(map.sourcesContent) && map.sourcesContent.some((text) => text != null)) {
      problems.push(`${name}: ${file.path} carries a copy of its sources (sourcesContent)`);
    }
    for (const source of map.sources ?? []) {
      const target = path.posix.normalize(
        path.posix.join(path.posix.dirname(file.path), map.sourceRoot ?? "", source),
      );
      if (!paths.has(target)) {
        problems.push(`${name}: ${file.path} points to ${source}, which is not in the tarball`);
      }
    }
  }
  const unpacked = files.reduce((total, file) => total + file.size, 0);
  const budget = budgets[name] ?? defaultBudget;
  if (unpacked > budget) {
    problems.push(
      `${name}: ${unpacked.toLocaleString("en")} bytes unpacked, over its budget of ${budget.toLocaleString("en")}`,
    );
  }
  return { problems, unpacked, files: files.length };
}
