/** GitHub's secret-scanning endpoint through the Fetch adapter, served over real HTTP by srvx. */

import { secretScanning } from "@keyward/core/secret-scanning";
import { describeSecretScanning, forwardTo } from "@keyward/testing";
import { serve } from "srvx";
import { demoHost, demoKeyward } from "./demo.js";

describeSecretScanning("@keyward/fetch on srvx, memory store", {
  serve: async (config) => {
    const keyward = demoKeyward({ features: [secretScanning(config)] });
    const server = serve({
      fetch: demoHost(keyward),
      port: 0,
      hostname: "127.0.0.1",
      silent: true,
    });
    await server.ready();
    return {
      fetch: forwardTo(() => server.url!),
      keyward,
      close: async () => {
        await server.close(true);
        await keyward.close();
      },
    };
  },
});
