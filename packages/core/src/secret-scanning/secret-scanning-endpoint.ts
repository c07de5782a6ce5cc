/**
 * `POST {basePath}/secret-scanning`: GitHub's secret-scanning partner endpoint. Order: method
 * (405) → body bytes within `maxBodyBytes` (413) → signature over those exact bytes (401; 503
 * when the keys cannot be fetched) → the report's shape (422) → each token checked and labelled
 * (200). No session or API key: the signature is the authentication.
 */
import { KeywardError } from "../errors/keyward-error.js";
import { jsonResponse } from "../http/json-response.js";
import { readBodyBytes } from "../http/read-json-body.js";
import type { KeywardContext } from "../keyward/context.js";
import { parseLeakReport } from "./leak-report-body.js";
import { respondToLeaks } from "./leak-responder.js";
import { checkReportSignature } from "./report-signature.js";
import { scannerPublicKeys } from "./scanner-public-keys.js";
import type { ResolvedSecretScanning } from "./secret-scanning-config.js";

/** The endpoint's path below the base path. */
export const secretScanningSubpath = "/secret-scanning";

export function secretScanningEndpoint(
  ctx: KeywardContext,
  config: ResolvedSecretScanning,
): (request: Request) => Promise<Response> {
  // Real time, not the injected clock: key caching is about the network, like a store's deadline.
  const keys = scannerPublicKeys(config, {
    now: () => Date.now(),
    reportFailure: ctx.reportFailure,
  });
  return async (request) => {
    if (request.method === "OPTIONS") {
      return new Response(null, { status: 204, headers: { Allow: "POST, OPTIONS" } });
    }
    if (request.method !== "POST") {
      throw new KeywardError("method_not_allowed", "Method Not Allowed", {
        headers: { Allow: "POST" },
      });
    }
    const body = await readBodyBytes(request, config.maxBodyBytes);
    await checkReportSignature(request.headers, body, keys);
    const report = parseLeakReport(body);
    if (!report.ok) throw new KeywardError("validation_failed", report.issues);
    return jsonResponse(200, await respondToLeaks(ctx, report.entries, config.action));
  };
}
