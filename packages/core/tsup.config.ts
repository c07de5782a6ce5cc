import { packageBuild } from "../../tsup.package.js";

export default packageBuild({
  entry: {
    index: "src/index.ts",
    "node-http/index": "src/node-http/index.ts",
    toolkit: "src/toolkit.ts",
    "secret-scanning/index": "src/secret-scanning/index.ts",
    "events/index": "src/events/index.ts",
    "lifecycle/index": "src/lifecycle/index.ts",
    "openapi/index": "src/openapi/index.ts",
    "organizations/index": "src/organizations/index.ts",
    "imports/index": "src/imports/index.ts",
    "recoverable/index": "src/recoverable/index.ts",
    "budgets/index": "src/budgets/index.ts",
    "agent-tokens/index": "src/agent-tokens/index.ts",
    "permissions/index": "src/permissions/index.ts",
  },
});
