import { describeDemoContract } from "../../shared/test/demo-contract-suite.js";

describeDemoContract("examples/hono", "hono", { example: "hono" });
