/**
 * The Worker on a port known before it starts, for bindings that name the Worker's own address
 * (`KEYWARD_MCP_RESOURCE`): a free port is found by listening on port 0, then handed to workerd.
 * Another process may take it in between; the start is then tried again on another port.
 */
import { createServer } from "node:net";
import { type RunningWorker, runInWorkerd, type WorkerdOptions } from "../../src/workerd.js";

export async function runOnKnownPort(
  options: (origin: string) => Omit<WorkerdOptions, "address">,
): Promise<RunningWorker> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      return await runInWorkerd({
        ...options(`http://127.0.0.1:${port}`),
        address: `127.0.0.1:${port}`,
      });
    } catch (error) {
      if (attempt >= 3) throw error;
    }
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
