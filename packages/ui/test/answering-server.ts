/**
 * A small real HTTP server for the refusals the demo cannot be made to give on demand (a 429 with
 * `Retry-After`, a 500, a 403 of another code): it serves a page with `<keyward-keys>` (the same
 * bundle the demo serves) and, under `/answers/<name>/api-keys`, answers every call with the
 * refusal named `<name>`. Same origin as the page, so the browser shows the component every header.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { uiScript } from "../../../examples/shared/src/page/ui-script.js";

export interface Refusal {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface AnsweringServer {
  origin: string;
  /** The `base-path` whose every call is answered with `refusals[name]`. */
  basePath(name: string): string;
  /** How many calls each refusal answered. */
  calls: Map<string, number>;
  close(): Promise<void>;
}

const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>keyward-keys answered by a test server</title>
<link rel="icon" href="data:,">
</head>
<body>
<main><h1>Your account</h1><keyward-keys></keyward-keys></main>
<script type="module" src="/ui.js"></script>
</body>
</html>`;

export async function startAnsweringServer(
  refusals: Record<string, Refusal>,
): Promise<AnsweringServer> {
  const calls = new Map<string, number>();
  const server: Server = createServer((request, response) => {
    const path = request.url ?? "/";
    if (path === "/") {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page);
      return;
    }
    if (path === "/ui.js") {
      void uiScript().then(
        (script) => response.writeHead(200, { "content-type": "text/javascript" }).end(script),
        (error: unknown) => response.writeHead(500).end(String(error)),
      );
      return;
    }
    const name = /^\/answers\/([^/]+)\/api-keys/.exec(path)?.[1];
    const refusal = name === undefined ? undefined : refusals[name];
    if (!name || !refusal) {
      response.writeHead(404).end();
      return;
    }
    calls.set(name, (calls.get(name) ?? 0) + 1);
    const body = refusal.body === undefined ? "" : JSON.stringify(refusal.body);
    response
      .writeHead(refusal.status, {
        ...(body ? { "content-type": "application/json" } : {}),
        ...refusal.headers,
      })
      .end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    basePath: (name) => `/answers/${name}/api-keys`,
    calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A port nothing listens on: one the system handed out, then closed. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
