import { packageBuild } from "../../tsup.package.js";

export default packageBuild({ external: ["vitest", "@keyward/core"] });
