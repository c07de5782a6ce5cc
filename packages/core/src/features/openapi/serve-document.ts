import { KeywardError } from "../../errors/keyward-error.js";

/** The document's path under the base path, when `openapi.serve` is on. */
export const documentSubpath = "/openapi.json";

/**
 * Answers `{basePath}/openapi.json`: `GET` with the document, `OPTIONS` with `Allow` (as every
 * path under the base path does), anything else 405. No credentials: the document describes the
 * API, it reveals nothing about anyone's keys.
 */
export function serveDocument(method: string, documentJson: () => string): Response {
  if (method === "GET") {
    return new Response(documentJson(), {
      status: 200,
      headers: { "content-type": "application/json" },
    });
  }
  if (method === "OPTIONS") {
    return new Response(null, { status: 204, headers: { Allow: "GET, OPTIONS" } });
  }
  return new KeywardError("method_not_allowed", "Method Not Allowed", {
    headers: { Allow: "GET" },
  }).toResponse();
}
