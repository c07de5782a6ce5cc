import { createServer, get, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, expect, it } from "vitest";
import { sendResponse } from "./send-response.js";

let server: Server | undefined;
afterEach(() => new Promise<void>((done) => (server ? server.close(() => done()) : done())));

/** Serves one Fetch `Response` through `sendResponse` and reads it back over HTTP. */
async function roundTrip(response: Response) {
  server = createServer((_req, res) => {
    res.setHeader("x-set-earlier", "kept");
    void sendResponse(res, response);
  });
  await new Promise<void>((done) => server!.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  return new Promise<{ status: number; headers: Record<string, unknown>; text: string }>(
    (resolve, reject) => {
      get(`http://127.0.0.1:${port}/`, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, text }));
      }).on("error", reject);
    },
  );
}

it("writes the status, headers and body, keeping headers set before it", async () => {
  const reply = await roundTrip(
    Response.json({ detail: "Not Found" }, { status: 404, headers: { "x-ratelimit-limit": "60" } }),
  );
  expect(reply.status).toBe(404);
  expect(reply.text).toBe('{"detail":"Not Found"}');
  expect(reply.headers["content-type"]).toBe("application/json");
  expect(reply.headers["x-ratelimit-limit"]).toBe("60");
  expect(reply.headers["x-set-earlier"]).toBe("kept");
});

it("keeps each Set-Cookie on its own line", async () => {
  const headers = new Headers();
  headers.append("set-cookie", "a=1; Path=/");
  headers.append("set-cookie", "b=2; Expires=Wed, 21 Oct 2026 07:28:00 GMT");
  const reply = await roundTrip(new Response(null, { status: 204, headers }));
  expect(reply.status).toBe(204);
  expect(reply.headers["set-cookie"]).toEqual([
    "a=1; Path=/",
    "b=2; Expires=Wed, 21 Oct 2026 07:28:00 GMT",
  ]);
});
