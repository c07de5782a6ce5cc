/**
 * `@keyward/ui/bundle` for the browser, bundled from the workspace's source with esbuild on first
 * request: a fresh clone shows the page without a build step, and an edit to packages/ui shows up on
 * the next start. Bundled once per process; a failure (Deno without `--allow-run`, which esbuild's
 * binary needs) is answered, and logged, on each request for the script.
 */
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
