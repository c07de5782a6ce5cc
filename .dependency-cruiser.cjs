/**
 * The layering, as rules `pnpm deps` checks on every CI run (dependency-cruiser). Imports are
 * followed as the tests resolve them (the `@keyward/source` condition maps each `@keyward/*` import
 * to its package's source), type-only imports included.
 *
 * - no import cycle anywhere;
 * - the kernel (`@keyward/core` outside its feature folders) imports no feature;
 * - a feature imports no other feature;
 * - packages meet only through their public entry points, never another package's files;
 * - adapters and stores do not import each other: they meet in the host;
 * - shipped code imports no test code.
 */
const coreFeatures = [
  "agent-tokens",
  "events",
  "imports",
  "lifecycle",
  "openapi",
  "organizations",
  "permissions",
  "recoverable",
  "secret-scanning",
  "budgets",
];
const featureFolder = `^packages/core/src/features/(${coreFeatures.join("|")})/`;

module.exports = {
  forbidden: [
    {
      name: "no-cycles",
      severity: "error",
      comment: "An import cycle (type-only imports count): layers must point one way.",
      from: {},
      to: { circular: true },
    },
    {
      name: "kernel-imports-no-feature",
      severity: "error",
      comment:
        "The kernel knows no feature: a feature plugs in through `features` (docs/features.md).",
      from: { path: "^packages/core/src/", pathNot: [featureFolder, "\\.test\\.ts$"] },
      to: { path: featureFolder },
    },
    {
      name: "features-import-no-other-feature",
      severity: "error",
      comment:
        "A feature depends on the kernel only (its tests may list other features, as a host does).",
      from: { path: "^packages/core/src/([^/]+)/", pathNot: "\\.test\\.ts$" },
      to: {
        path: featureFolder,
        pathNot: "^packages/core/src/$1/",
      },
    },
    {
      name: "packages-meet-through-entry-points",
      severity: "error",
      comment:
        "Another package is imported by its name and entry point, never by a path into its files.",
      from: { path: "^packages/([^/]+)/src/" },
      to: {
        path: "^packages/([^/]+)/src/",
        pathNot: [
          "^packages/$1/src/",
          "^packages/[^/]+/src/index\\.ts$",
          "^packages/core/src/(toolkit|node-http/index|features/(agent-tokens|budgets|events|imports|lifecycle|openapi|organizations|permissions|recoverable|secret-scanning)/index)\\.ts$",
        ],
      },
    },
    {
      name: "adapters-and-stores-meet-in-the-host",
      severity: "error",
      comment: "An adapter does not import a store, nor a store an adapter.",
      from: { path: "^packages/(express|fastify|fetch|hono)/src/" },
      to: { path: "^packages/(postgres|redis|cloudflare)/src/" },
    },
    {
      name: "stores-import-no-adapter",
      severity: "error",
      from: { path: "^packages/(postgres|redis|cloudflare)/src/" },
      to: { path: "^packages/(express|fastify|fetch|hono|ui|cli)/src/" },
    },
    {
      name: "shipped-code-imports-no-tests",
      severity: "error",
      from: { path: "^packages/[^/]+/src/", pathNot: "\\.test\\.ts$" },
      to: { path: ["\\.test\\.ts$", "^packages/[^/]+/test/"] },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: ["node_modules", "/dist/"] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      conditionNames: ["@keyward/source", "import", "types", "default"],
      exportsFields: ["exports"],
      extensions: [".ts", ".js", ".mjs", ".json"],
    },
  },
};
