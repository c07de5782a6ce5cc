/**
 * GitHub's secret-scanning endpoint on Hono over @hono/node-server, with a middleware in front that
 * reads the body as JSON first (as a validator would): Hono keeps the text it read, and Keyward
 * gets those bytes unchanged.
 */

import { secretScanning } from "@keyward/core/secret-scanning";
import { describeSecretScanning, forwardTo } from "@keyward/testing";
import { Hono } from "hono";
import { type KeywardEnv, keyward } from "../src/index.js";
import { demoKeyward } from "./demo.js";
import { listen } from "./node-server.js";

describeSecretScanning("@keyward/hono after a middleware that read the JSON body", {
  serve: async (config) => {
    const instance = demoKeyward({ features: [secretScanning(config)] });
    const app = new Hono<KeywardEnv>();
    app.use(async (c, next) => {
      if (c.req.method === "POST") await c.req.json().catch(() => undefined);
      await next();
    });
    app.use(keyward(instance));
    const server = await listen(app);
    return {
      fetch: forwardTo(server.origin),
      keyward: instance,
      close: async () => {
        await server.close();
        await instance.close();
      },
    };
  },
});
