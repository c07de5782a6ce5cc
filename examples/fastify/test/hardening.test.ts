import { describeServerHardening } from "../../shared/test/server-hardening-suite.js";

describeServerHardening("examples/fastify", "fastify", "fastify");
