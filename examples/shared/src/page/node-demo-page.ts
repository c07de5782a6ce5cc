/**
 * The demo page on a Node server (Express, Fastify): the request as a Fetch `Request`, the answer
 * written back to Node's response. Runs before the framework reads the body.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { toFetchRequest } from "@keyward/core/node-http";
import type { DemoPage } from "./demo-page.js";

/** Answers the page's requests; resolves `false` (nothing written) for every other one. */
export function answerDemoPageOnNode(
  page: DemoPage,
): (req: IncomingMessage, res: ServerResponse) => Promise<boolean> {
  return async (req, res) => {
    if (!page.enabled) return false;
    const path = req.url ?? "/";
    const pathname = path.split("?")[0];
    // Only the page's few paths are turned into a Request: the body of any other stays unread.
    if (!(pathname === "/" || pathname?.startsWith("/demo/"))) return false;
    // The origin only completes the URL; the page never reads it (a Host header cannot break it).
    const response = await page.handle(toFetchRequest(req, { origin: "http://localhost", path }));
    if (!response) return false;
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
    return true;
  };
}
