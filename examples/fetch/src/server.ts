/**
 * The Fetch example's server. srvx picks the runtime's own HTTP server, so this one file runs on
 * Node (`pnpm start`), Bun (`pnpm start:bun`) and Deno (`pnpm start:deno`).
 */
import { Server as NodeHttpServer } from "node:http";
import { fileURLToPath } from "node:url";
import { answerClientError } from "@keyward/core/node-http";
import {
  closeOnSignal,
  createDemoPage,
  demoMcp,
  exitOnStartupError,
  nodeServerTimeouts,
  printBanner,
  withDemoMetrics,
  withDemoPage,
} from "@keyward/example-demo";
import { serve } from "srvx";
import { createApp } from "./app.js";

const runtimeTitles: Record<string, string> = {
  node: "Fetch API on Node (srvx)",
  bun: "Fetch API on Bun",
  deno: "Fetch API on Deno",
};

try {
  // Imported here, not at the top: a bad variable or an unreachable store is reported below.
  const { demo } = await import("./keyward.js");
  const mcp = demoMcp(demo.keyward);
  const server = serve({
    // In development, the key-management page at `/` (docs/ui.md); in production, the app alone.
    // GET /metrics: Prometheus text (docs/observability.md), in every mode.
    fetch: withDemoMetrics(
      demo.metrics,
      withDemoPage(createDemoPage(demo.config), createApp(demo.keyward, mcp)),
    ),
    port: demo.config.port,
    hostname: demo.config.host,
    silent: true, // the banner below says where to go
    gracefulShutdown: false, // closeOnSignal also flushes Keyward's buffered usage
    // On Node only (Bun and Deno ignore it): cut slow clients off, see nodeServerTimeouts.
    node: nodeServerTimeouts(demo.config),
  });
  // On Node, what its parser refuses (a malformed Content-Length, a timeout) answers as
  // `{"detail": ...}` too, instead of a bare status line.
  const nodeServer = server.node?.server;
  if (nodeServer instanceof NodeHttpServer) nodeServer.on("clientError", answerClientError);
  await server.ready();
  const port = new URL(server.url!).port;
  // `/mcp`'s resource is the address it listens on.
  mcp.listening(Number(port));
  printBanner({
    title: runtimeTitles[server.runtime] ?? `Fetch API on ${server.runtime}`,
    url: `http://localhost:${port}`,
    config: demo.config,
    storage: demo.storage,
    metering: demo.metering,
    exampleDirectory: fileURLToPath(new URL("..", import.meta.url)).replace(/[\\/]$/, ""),
  });
  closeOnSignal(async () => {
    await server.close(true);
    await demo.keyward.close();
  });
} catch (error) {
  exitOnStartupError(error);
}
