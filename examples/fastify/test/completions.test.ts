import { loadDemoConfig, nodeServerTimeouts } from "@keyward/example-demo";
import { describeCompletions } from "../../shared/test/completions-suite.js";
import { createApp } from "../src/app.js";

describeCompletions("examples/fastify", async (keyward) => {
  const app = await createApp(keyward, nodeServerTimeouts(loadDemoConfig({})));
  const address = await app.listen({ port: 0, host: "127.0.0.1" });
  return { origin: address, close: () => app.close() };
});
