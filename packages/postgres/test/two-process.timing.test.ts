/** Timing project: two processes on one database, 100 trials per change, p99 delay within 50 ms. */
import { describeTwoProcesses } from "./two-process/revocation-suite.js";

describeTwoProcesses({ trials: 100, p99BoundMs: 50 });
