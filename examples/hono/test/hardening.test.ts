import { describeServerHardening } from "../../shared/test/server-hardening-suite.js";

describeServerHardening("examples/hono", "hono", "hono");
