import { packageBuild } from "../../tsup.package.js";

// Two entries: the suites (which import vitest) and the demo contract, which must not, so that the
// examples' servers can import it at run time.
export default packageBuild({
  entry: ["src/index.ts", "src/demo-contract.ts"],
  external: ["vitest", "@keyward/core"],
});
