/**
 * A plain `node:http` client for what `fetch` cannot send: the same header twice on the wire, a
 * chunked body of a chosen size without `Content-Length`, and a request from another local
 * address. Adapters to Node frameworks use it to test how they translate requests.
 */
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";

export interface RawRequest {
  method: string;
  path: string;
  /** A header given an array is sent as that many separate header lines. */
  headers?: Record<string, string | string[]>;
  /** Sent as these chunks with `Transfer-Encoding: chunked`, or as one body with its length. */
  body?: string | string[];
  /**
   * The address to send from. On Linux all of 127.0.0.0/8 is loopback, so `"127.0.0.2"` reaches a
   * server on 127.0.0.1 as a second client: what per-address limits are tested with.
   */
  localAddress?: string;
}

export interface RawReply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json: unknown;
}

export function rawRequest(origin: string, init: RawRequest): Promise<RawReply> {
  const url = new URL(init.path, origin);
  return new Promise((resolve, reject) => {
    const options = {
      method: init.method,
      ...(init.localAddress === undefined ? {} : { localAddress: init.localAddress }),
    };
    const request = httpRequest(url, options, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("error", reject);
      response.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json });
      });
    });
    request.on("error", reject);
    for (const [name, value] of Object.entries(init.headers ?? {})) request.setHeader(name, value);
    if (typeof init.body === "string") {
      request.setHeader("content-length", Buffer.byteLength(init.body));
      request.end(init.body);
    } else if (Array.isArray(init.body)) {
      for (const chunk of init.body) request.write(chunk);
      request.end();
    } else {
      request.end();
    }
  });
}
