/** Two processes on one database: every revocation, rotation, disable and enable is seen by the other (few trials; the p99 delay bound is two-process.timing.test.ts's). */
import { describeTwoProcesses } from "./two-process/revocation-suite.js";

describeTwoProcesses({ trials: 10 });
