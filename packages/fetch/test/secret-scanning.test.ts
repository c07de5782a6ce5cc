/** GitHub's secret-scanning endpoint through the Fetch adapter, served over real HTTP by srvx. */
import { describeSecretScanning, forwardTo } from "@keyward/testing";
import { serve } from "srvx";
import { demoHost, demoKeyward } from "./demo.js";

describeSecretScanning("@keyward/fetch on srvx, memory store", {
  serve: async (secretScanning) => {
    const keyward = demoKeyward({ secretScanning });
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
