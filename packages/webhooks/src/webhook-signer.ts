/**
 * Standard Webhooks signatures, made with the `standardwebhooks` package (pure JavaScript: it runs
 * on Node, Deno, Bun and Workers alike). The signed content is `<webhook-id>.<webhook-timestamp>.<body>`,
 * HMAC-SHA256 with the endpoint's secret, sent as `webhook-signature: v1,<base64>`.
 */
import { Webhook } from "standardwebhooks";

const secretPrefix = "whsec_";
const base64Pattern = /^[A-Za-z0-9+/]+={0,2}$/;

/** The key bytes of a `whsec_` secret, or undefined when it is not one of 24 to 64 bytes. */
export function decodeWebhookSecret(secret: string): Uint8Array | undefined {
  if (!secret.startsWith(secretPrefix)) return undefined;
  const body = secret.slice(secretPrefix.length);
  if (!base64Pattern.test(body) || body.length % 4 !== 0) return undefined;
  const bytes = Uint8Array.from(atob(body), (c) => c.charCodeAt(0));
  return bytes.length >= 24 && bytes.length <= 64 ? bytes : undefined;
}

export interface WebhookSigner {
  /** The three headers of one request: `webhook-id`, `webhook-timestamp`, `webhook-signature`. */
  headers(messageId: string, body: string, at: Date): Record<string, string>;
}

export function webhookSigner(secret: string): WebhookSigner {
  const webhook = new Webhook(secret);
  return {
    headers(messageId, body, at) {
      return {
        "webhook-id": messageId,
        "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
        "webhook-signature": webhook.sign(messageId, at, body),
      };
    },
  };
}
