import { describeServerHardening } from "../../shared/test/server-hardening-suite.js";

describeServerHardening("examples/express", "express", "express");
