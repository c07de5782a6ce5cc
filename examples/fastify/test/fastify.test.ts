import { describeDemoContract } from "../../shared/test/demo-contract-suite.js";

describeDemoContract("examples/fastify", "fastify", { example: "fastify" });
