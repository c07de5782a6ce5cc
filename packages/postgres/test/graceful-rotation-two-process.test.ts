/** Graceful rotation across two processes: both secrets during the grace, the old one refused after it or once the grace is ended (fewer trials; the p99 delay bounds are graceful-rotation-two-process.timing.test.ts's). */
import { describeGracefulRotation } from "./two-process/graceful-rotation-suite.js";

describeGracefulRotation({ trials: { deadline: 3, ended: 5 } });
