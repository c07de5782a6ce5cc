import { packageBuild } from "../../tsup.package.js";

export default packageBuild({ external: ["@keyward/core"] });
