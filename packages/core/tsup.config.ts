import { packageBuild } from "../../tsup.package.js";

export default packageBuild({
  entry: {
    index: "src/index.ts",
    "node-http/index": "src/node-http/index.ts",
    toolkit: "src/toolkit.ts",
    "features/secret-scanning/index": "src/features/secret-scanning/index.ts",
    "features/events/index": "src/features/events/index.ts",
    "features/lifecycle/index": "src/features/lifecycle/index.ts",
    "features/openapi/index": "src/features/openapi/index.ts",
    "features/organizations/index": "src/features/organizations/index.ts",
    "features/imports/index": "src/features/imports/index.ts",
    "features/recoverable/index": "src/features/recoverable/index.ts",
    "features/budgets/index": "src/features/budgets/index.ts",
    "features/agent-tokens/index": "src/features/agent-tokens/index.ts",
    "features/permissions/index": "src/features/permissions/index.ts",
  },
});
