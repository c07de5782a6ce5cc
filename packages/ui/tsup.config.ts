import { packageBuild } from "../../tsup.package.js";

/**
 * Two entry points: `index` leaves `lit` to the host's bundler (one copy of Lit per page), and
 * `bundle` carries Lit inside, for a page with no build step (`<script type="module" src=…>`).
 */
export default [
  packageBuild({ entry: { index: "src/index.ts" }, target: "es2021" }),
  packageBuild({
    entry: { bundle: "src/bundle.ts" },
    target: "es2021",
    noExternal: [
      "lit",
      /^lit\//,
      /^@lit\//,
      "lit-html",
      /^lit-html\//,
      "lit-element",
      /^lit-element\//,
    ],
    // Both configs write to dist/: only the first may empty it.
    clean: false,
    minify: true,
    // No map: it would lead into Lit's sources, which the package does not ship (and copying them
    // in would double the bundle's weight); debug with the `index` entry, whose map leads to src/.
    sourcemap: false,
  }),
];
