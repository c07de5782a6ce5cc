import { defineConfig, type Options } from "tsup";

/**
 * How every `@keyward/*` package is built: ESM with declarations, from `src/index.ts` unless told
 * otherwise. `node:` specifiers are kept as written, because Deno resolves built-ins only with the
 * prefix (tsup strips it by default). Source maps point at the package's `src/`, which ships, and
 * carry no copy of it (`sourcesContent: false`): the copy doubled the source's weight in every
 * tarball (docs/releasing.md, "What a package ships").
 */
export function packageBuild(options: Options = {}) {
  return defineConfig({
    entry: ["src/index.ts"],
    format: ["esm"],
    // Declarations come from one program for every package (scripts/build.mjs).
    dts: false,
    clean: true,
    sourcemap: true,
    target: "es2022",
    removeNodeProtocol: false,
    esbuildOptions(esbuild) {
      esbuild.sourcesContent = false;
    },
    ...options,
  });
}
