/** The Hono example's server, on Node through @hono/node-server: `pnpm start`. */
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { getRequestListener } from "@hono/node-server";
import { answerClientError } from "@keyward/core/node-http";
import {
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
  // @hono/node-server's listener on a server of our own, so the demo's timeouts apply.
  const mcp = demoMcp(demo.keyward);
  const app = createApp(demo.keyward, mcp);
  // In development, the key-management page at `/` (docs/ui.md); in production, the app alone.
  // Hono's own arguments after the request (the Node request, for `getConnInfo`) are passed on.
  const page = createDemoPage(demo.config);
  const withPage: typeof app.fetch = page.enabled
    ? async (request, ...rest) => (await page.handle(request)) ?? app.fetch(request, ...rest)
    : app.fetch;
  // GET /metrics: Prometheus text (docs/observability.md), in every mode.
  const fetch: typeof app.fetch = async (request, ...rest) =>
    (await demo.metrics.handle(request)) ?? withPage(request, ...rest);
  const server = createServer(nodeServerTimeouts(demo.config), getRequestListener(fetch));
  // What Node's parser refuses (a malformed Content-Length, a timeout) answers as `{"detail": ...}`.
  server.on("clientError", answerClientError);
  server.listen(demo.config.port, demo.config.host);
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  // Before any request is read: `/mcp`'s resource is the address it listens on.
  mcp.listening(port);
  printBanner({
    title: "Hono on Node (@hono/node-server)",
    url: `http://localhost:${port}`,
    config: demo.config,
    storage: demo.storage,
    metering: demo.metering,
    exampleDirectory: fileURLToPath(new URL("..", import.meta.url)).replace(/[\\/]$/, ""),
  });
  closeOnSignal(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await demo.keyward.close();
  });
} catch (error) {
  exitOnStartupError(error);
}
