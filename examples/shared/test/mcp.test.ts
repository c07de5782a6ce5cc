/**
 * The demo's `/mcp` on every Node example, started as a user starts it (mcp-suite.ts says what is
 * checked).
 */
import { describeMcp } from "./mcp-suite.js";
import { type StartTarget, startExample } from "./run-example.js";

const targets: StartTarget[] = ["express", "fastify", "fetch", "hono"];

for (const target of targets) {
  describeMcp(`/mcp on the ${target} example`, () => startExample(target));
}
