/**
 * GitHub's secret-scanning endpoint on Express over real HTTP (run on Express 4 and 5): with the router first, and with
 * `express.json()` in front of it keeping the raw bytes (`verify: keepRawBody`). Without
 * `keepRawBody`, a parser in front re-serialises the body and the signature no longer matches.
 */

import { secretScanning } from "@keyward/core/secret-scanning";
import { describeSecretScanning, forwardTo, startScannerKeyServer } from "@keyward/testing";
import { describe, expect, it } from "vitest";
import { keepRawBody, keywardRouter } from "../src/index.js";
import { demoApp, demoKeyward, type ExpressModule, listen } from "./demo.js";

export function describeExpressSecretScanning(name: string, express: ExpressModule): void {
  describeSecretScanning(`${name} (router first), memory store`, {
    serve: async (config) => {
      const keyward = demoKeyward({ features: [secretScanning(config)] });
      const server = await listen(demoApp(express, keyward));
      return {
        fetch: forwardTo(server.origin),
        keyward,
        close: async () => {
          await server.close();
          await keyward.close();
        },
      };
    },
  });

  describeSecretScanning(`${name} behind express.json({ verify: keepRawBody })`, {
    hostParsesJsonFirst: true,
    serve: async (config) => {
      const keyward = demoKeyward({ features: [secretScanning(config)] });
      const app = express();
      app.use(express.json({ verify: keepRawBody }));
      app.use(keywardRouter(keyward));
      const server = await listen(app);
      return {
        fetch: forwardTo(server.origin),
        keyward,
        close: async () => {
          await server.close();
          await keyward.close();
        },
      };
    },
  });

  describe(`${name} behind express.json() without keepRawBody`, () => {
    it("cannot verify a report whose bytes the parser re-serialised (401), as documented", async () => {
      const keys = await startScannerKeyServer();
      const keyward = demoKeyward({ features: [secretScanning({ keysUrl: keys.url })] });
      const app = express();
      app.use(express.json());
      app.use(keywardRouter(keyward));
      const server = await listen(app);
      try {
        // GitHub's bodies are compact JSON; spacing that JSON.stringify would not reproduce.
        const body = '[ {"token": "sk_live_x", "type": "keyward_api_key"} ]';
        const reply = await fetch(`${server.origin}${keyward.basePath}/secret-scanning`, {
          method: "POST",
          headers: { "content-type": "application/json", ...(await keys.sign(body)) },
          body,
        });
        expect(reply.status).toBe(401);
      } finally {
        await server.close();
        await keyward.close();
        await keys.close();
      }
    });
  });
}
