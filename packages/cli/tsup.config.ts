import { packageBuild } from "../../tsup.package.js";

// The library entry (`run`) and the executable; the bundled bin keeps its shebang. tsx stays
// external: it loads the application's TypeScript module at run time.
export default packageBuild({
  entry: ["src/index.ts", "src/bin.ts"],
  external: ["@keyward/core", "@keyward/postgres", "pg", "tsx"],
});
