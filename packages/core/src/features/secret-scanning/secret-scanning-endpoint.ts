/**
 * `POST {basePath}/secret-scanning`: GitHub's secret-scanning partner endpoint. No session or API
 * key: the signature is the authentication, so nothing is read from an anonymous client that its
 * headers alone can refuse. Order: method (405) → a declared `Content-Length` over `maxBodyBytes`
 * (413) → the signature headers and the signing key they name (401; 503 when the keys cannot be
 * fetched) → a free report slot (503 `reports_busy`, see `report-slots.ts`) → the body's bytes
 * within `maxBodyBytes` (413) → the signature over those exact bytes (401) → the report's shape
 * (422) → each token checked and labelled (200).
 */
import { KeywardError } from "../../errors/keyward-error.js";
import type { FeatureKernel } from "../../feature-interface/feature-kernel.js";
import { jsonResponse } from "../../http/json-response.js";
import { readBodyBytes, refuseDeclaredOverLimit } from "../../http/read-json-body.js";
import { parseLeakReport } from "./leak-report-body.js";
import { respondToLeaks } from "./leak-responder.js";
import { checkReportSignature, reportSigner } from "./report-signature.js";
import { reportSlots } from "./report-slots.js";
import { scannerPublicKeys } from "./scanner-public-keys.js";
import type { ResolvedSecretScanning } from "./secret-scanning-config.js";

/** The endpoint's path below the base path. */
export const secretScanningSubpath = "/secret-scanning";

export function secretScanningEndpoint(
  ctx: FeatureKernel,
  config: ResolvedSecretScanning,
): (request: Request) => Promise<Response> {
  // Real time, not the injected clock: key caching is about the network, like a store's deadline.
  const keys = scannerPublicKeys(config, {
    now: () => Date.now(),
    reportFailure: ctx.log.reportFailure,
  });
  const slots = reportSlots(config.maxConcurrentReports);
  return async (request) => {
    if (request.method === "OPTIONS") {
      return new Response(null, { status: 204, headers: { Allow: "POST, OPTIONS" } });
    }
    if (request.method !== "POST") {
      throw new KeywardError("method_not_allowed", "Method Not Allowed", {
        headers: { Allow: "POST" },
      });
    }
    refuseDeclaredOverLimit(request, config.maxBodyBytes);
    const signer = await reportSigner(request.headers, keys);
    const release = slots.take();
    if (!release) {
      throw new KeywardError(
        "reports_busy",
        "Too many secret-scanning reports are being read at once; retry shortly",
        { headers: { "Retry-After": "1" } },
      );
    }
    let body: Uint8Array<ArrayBuffer>;
    try {
      body = await readBodyBytes(request, config.maxBodyBytes);
    } finally {
      release();
    }
    await checkReportSignature(signer, body);
    const report = parseLeakReport(body);
    if (!report.ok) throw new KeywardError("validation_failed", report.issues);
    return jsonResponse(200, await respondToLeaks(ctx, report.entries, config.action));
  };
}
