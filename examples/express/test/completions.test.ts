import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describeCompletions } from "../../shared/test/completions-suite.js";
import { createApp } from "../src/app.js";

describeCompletions("examples/express", async (keyward) => {
  const server = createServer(createApp(keyward)).listen(0, "127.0.0.1");
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
