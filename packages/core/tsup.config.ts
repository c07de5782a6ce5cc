import { packageBuild } from "../../tsup.package.js";

export default packageBuild({
  entry: {
    index: "src/index.ts",
    "node-http/index": "src/node-http/index.ts",
    toolkit: "src/toolkit.ts",
    "secret-scanning/index": "src/secret-scanning/index.ts",
  },
});
