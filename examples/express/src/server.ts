/** The Express example's server: `pnpm start`. */
import { once } from "node:events";
import { createServer } from "node:http";
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
import { answerClientError } from "@keyward/express";
import { createApp } from "./app.js";

try {
  // Imported here, not at the top: a bad variable or an unreachable store is reported below.
  const { demo } = await import("./keyward.js");
  const mcp = demoMcp(demo.keyward);
  const app = createApp(demo.keyward, mcp);
  // In development, the key-management page at `/` (docs/ui.md) answers before Express does.
  const page = answerDemoPageOnNode(createDemoPage(demo.config));
  const server = createServer(nodeServerTimeouts(demo.config), (req, res) => {
    // GET /metrics (Prometheus text, docs/observability.md), then the page, then Express.
    demo.metrics
      .answerOnNode(req, res)
      .then((answered) => answered || page(req, res))
      .then(
        (answered) => answered || app(req, res),
        (error: unknown) => {
          console.error("keyward demo page:", error);
          if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
          res.end('{"detail":"Internal server error"}');
        },
      );
  });
  // What Node's parser refuses (a malformed Content-Length, a timeout) never reaches Express.
  server.on("clientError", answerClientError);
  server.listen(demo.config.port, demo.config.host);
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  // Before any request is read: `/mcp`'s resource is the address it listens on.
  mcp.listening(port);
  printBanner({
    title: "Express on Node",
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
