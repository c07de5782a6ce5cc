import { describeDemoContract } from "../../shared/test/demo-contract-suite.js";

// `pnpm start` at the root runs exactly this: examples/fetch on Node through srvx.
describeDemoContract("examples/fetch on Node (srvx)", "fetch", { example: "fetch" });
