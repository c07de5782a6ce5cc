/**
 * GitHub's secret-scanning endpoint on Fastify 5 over real HTTP. The host keeps Fastify's JSON
 * parser and adds one of its own at the root: the plugin's encapsulated context still hands
 * Keyward the raw bytes.
 */

import { secretScanning } from "@keyward/core/secret-scanning";
import { describeSecretScanning, forwardTo } from "@keyward/testing";
import { demoApp, demoKeyward } from "./demo.js";

describeSecretScanning("@keyward/fastify, memory store", {
  serve: async (config) => {
    const keyward = demoKeyward({ features: [secretScanning(config)] });
    const app = await demoApp(keyward);
    // A host parser that would re-serialise JSON differently, were it to run on Keyward's routes.
    app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => {
      done(null, { rewritten: JSON.parse(body as string) });
    });
    const origin = await app.listen({ port: 0, host: "127.0.0.1" });
    return {
      fetch: forwardTo(origin),
      keyward,
      close: async () => {
        await app.close();
        await keyward.close();
      },
    };
  },
});
