/**
 * `@keyward/ui/bundle` for the browser. Bundled from the workspace's source with esbuild on first
 * request, so a fresh clone shows the page without a build step and an edit to packages/ui shows
 * up on the next start; once per process. Where esbuild cannot run (Deno without `--allow-run`: its
 * binary is a subprocess), the built `packages/ui/dist/bundle.js` is served instead, if `pnpm build`
 * made one.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

let bundled: Promise<string> | undefined;

export function uiScript(): Promise<string> {
  bundled ??= bundleUi().catch((error: unknown) => {
    bundled = undefined; // a later request tries again
    throw error;
  });
  return bundled;
}

async function bundleUi(): Promise<string> {
  try {
    return await bundleFromSource();
  } catch (bundling) {
    const built = path.join(
      path.dirname(createRequire(import.meta.url).resolve("@keyward/ui/package.json")),
      "dist",
      "bundle.js",
    );
    try {
      return await readFile(built, "utf8");
    } catch {
      throw new Error(
        `esbuild could not bundle @keyward/ui (${String(bundling)}), and there is no ${built}: run \`pnpm build\``,
        { cause: bundling },
      );
    }
  }
}

async function bundleFromSource(): Promise<string> {
  const { build } = await import("esbuild");
  const result = await build({
    stdin: {
      contents: 'export * from "@keyward/ui/bundle";',
      resolveDir: fileURLToPath(new URL(".", import.meta.url)),
      loader: "js",
    },
    bundle: true,
    format: "esm",
    target: "es2021",
    minify: true,
    write: false,
    // The workspace packages' TypeScript source, as the examples themselves run.
    conditions: ["@keyward/source"],
    logLevel: "silent",
  });
  return result.outputFiles[0]!.text;
}
