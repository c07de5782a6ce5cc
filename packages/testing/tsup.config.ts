import { packageBuild } from "../../tsup.package.js";

// Three entries: the suites (which import vitest); the demo contract, which must not, so that the
// examples' servers can import it at run time; and the layered-exactness harness, Node only (it
// forks), kept out of the root entry that runs on every runtime.
export default packageBuild({
  entry: {
    index: "src/index.ts",
    "demo-contract": "src/demo-contract.ts",
    "layered-exactness/index": "src/layered-exactness/index.ts",
  },
  external: ["vitest", "@keyward/core"],
});
