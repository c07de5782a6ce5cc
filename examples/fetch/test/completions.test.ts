import { serve } from "srvx";
import { describeCompletions } from "../../shared/test/completions-suite.js";
import { createApp } from "../src/app.js";

describeCompletions("examples/fetch", async (keyward) => {
  const server = serve({
    fetch: createApp(keyward),
    port: 0,
    hostname: "127.0.0.1",
    silent: true,
    gracefulShutdown: false,
  });
  await server.ready();
  return {
    origin: new URL(server.url!).origin,
    close: () => server.close(true),
  };
});
