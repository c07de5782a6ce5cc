import { describeDemoContract } from "../../shared/test/demo-contract-suite.js";

describeDemoContract("examples/express", "express", { example: "express" });
