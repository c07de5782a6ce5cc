/**
 * The fenced code blocks of a markdown page, for tests that compile or run what the docs show: a
 * snippet that no longer compiles, or that stops working as time passes, fails a test instead of
 * a reader.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export interface CodeBlock {
  /** The word after the opening fence: `ts`, `bash`… */
  language: string;
  /** What follows the language on the opening fence (`fragment` in ```` ```ts fragment ````), trimmed. */
  info: string;
  code: string;
  /** 1-based line of the opening fence, to name the block in a failure. */
  line: number;
}

/** Every fenced block of `file` (relative to the repository root), in order. */
export function codeBlocks(file: string): CodeBlock[] {
  const text = readFileSync(path.join(repositoryRoot, file), "utf8");
  const blocks: CodeBlock[] = [];
  const fence = /^```(\w*)([^\n]*)\n([\s\S]*?)^```\s*$/gm;
  for (const match of text.matchAll(fence)) {
    blocks.push({
      language: match[1] ?? "",
      info: (match[2] ?? "").trim(),
      code: match[3] ?? "",
      line: text.slice(0, match.index).split("\n").length,
    });
  }
  return blocks;
}
