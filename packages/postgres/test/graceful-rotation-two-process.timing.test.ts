/** Timing project: graceful rotation across two processes, p99 delays within 50 ms. */
import { describeGracefulRotation } from "./two-process/graceful-rotation-suite.js";

describeGracefulRotation({ trials: { deadline: 10, ended: 40 }, p99BoundMs: 50 });
