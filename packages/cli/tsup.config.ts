import { packageBuild } from "../../tsup.package.js";

// The library entry (`run`) and the executable; the bundled bin keeps its shebang.
export default packageBuild({
  entry: ["src/index.ts", "src/bin.ts"],
  external: ["@keyward/core", "@keyward/postgres", "@keyward/redis", "pg", "ioredis"],
});
