import { describeServerHardening } from "../../shared/test/server-hardening-suite.js";

describeServerHardening("examples/fetch on Node (srvx)", "fetch", "fetch");
