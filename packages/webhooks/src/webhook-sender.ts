/**
 * One HTTP attempt: POST the event, signed, with a deadline. Every outcome is a value, never a
 * throw: a receiver that refuses, hangs or answers 500 is an ordinary failed attempt. What it says
 * about a failure is short and safe to store and log: the status, or the kind of network failure,
 * never a response body, a URL (it may carry a token) or a header.
 */
import type { WebhookSigner } from "./webhook-signer.js";

export type WebhookAttemptResult =
  | { ok: true; responseStatus: number }
  | { ok: false; responseStatus: number | null; error: string };

export async function sendWebhook(options: {
  fetch: typeof fetch;
  url: string;
  signer: WebhookSigner;
  messageId: string;
  body: string;
  at: Date;
  timeoutMs: number;
}): Promise<WebhookAttemptResult> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  try {
    const response = await options.fetch(options.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": "Keyward-Webhooks/1",
        ...options.signer.headers(options.messageId, options.body, options.at),
      },
      body: options.body,
      signal: controller.signal,
      redirect: "manual",
    });
    // The body is not read (nothing in it matters), but released, so the connection is reused.
    await response.body?.cancel().catch(() => {});
    if (response.status >= 200 && response.status < 300) {
      return { ok: true, responseStatus: response.status };
    }
    return { ok: false, responseStatus: response.status, error: `HTTP ${response.status}` };
  } catch (error) {
    if (controller.signal.aborted) {
      return { ok: false, responseStatus: null, error: `no answer within ${options.timeoutMs} ms` };
    }
    return { ok: false, responseStatus: null, error: networkFailure(error) };
  } finally {
    clearTimeout(timer);
  }
}

/** `request failed (ECONNREFUSED)`: the error's code when it has one, not its message (it may name the URL). */
function networkFailure(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  const code = cause && typeof cause.code === "string" ? cause.code : undefined;
  const name = error instanceof Error ? error.name : "Error";
  return code ? `request failed (${code})` : `request failed (${name})`;
}
