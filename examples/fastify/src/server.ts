/** The Fastify example's server: `pnpm start`. */
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import {
  answerDemoPageOnNode,
  closeOnSignal,
  createDemoPage,
  demoMcp,
  exitOnStartupError,
  nodeServerTimeouts,
  printBanner,
} from "@keyward/example-demo";
import { createApp } from "./app.js";

try {
  // Imported here, not at the top: a bad variable or an unreachable store is reported below.
  const { demo } = await import("./keyward.js");
  const mcp = demoMcp(demo.keyward);
  const app = await createApp(demo.keyward, nodeServerTimeouts(demo.config), mcp);
  // In development, the key-management page at `/` (docs/ui.md), before Fastify reads the body.
  const page = answerDemoPageOnNode(createDemoPage(demo.config));
  // GET /metrics (Prometheus text, docs/observability.md) answers there too.
  app.addHook("onRequest", async (request, reply) => {
    if (await demo.metrics.answerOnNode(request.raw, reply.raw)) return reply.hijack();
    if (await page(request.raw, reply.raw)) reply.hijack();
  });
  await app.listen({ port: demo.config.port, host: demo.config.host });
  const { port } = app.server.address() as AddressInfo;
  // `/mcp`'s resource is the address it listens on (requests before this get a 500, not a wrong answer).
  mcp.listening(port);
  printBanner({
    title: "Fastify on Node",
    url: `http://localhost:${port}`,
    config: demo.config,
    storage: demo.storage,
    metering: demo.metering,
    exampleDirectory: fileURLToPath(new URL("..", import.meta.url)).replace(/[\\/]$/, ""),
  });
  closeOnSignal(async () => {
    await app.close();
    await demo.keyward.close();
  });
} catch (error) {
  exitOnStartupError(error);
}
