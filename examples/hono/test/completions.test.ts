import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { describeCompletions } from "../../shared/test/completions-suite.js";
import { createApp } from "../src/app.js";

describeCompletions("examples/hono", async (keyward) => {
  const app = createApp(keyward);
  const server = createServer(getRequestListener(app.fetch)).listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
});
