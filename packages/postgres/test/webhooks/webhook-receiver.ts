/**
 * A real HTTP receiver for the webhook tests: it verifies every request with the
 * `standardwebhooks` package's `Webhook.verify`, as a host's receiver would, and records what it
 * got (the webhook-id, which instance sent it, when). What it answers is up to the test.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

export interface ReceivedWebhook {
  /** The `webhook-id` header: the event id. */
  id: string;
  /** The `x-test-instance` header the sending instance's `fetch` added. */
  instance: string | undefined;
  /** Which receiver path it came to (one per endpoint). */
  path: string;
  /** The event type, from the verified body. */
  type: string;
  /** `performance.now()` on arrival. */
  at: number;
  /** What the receiver answered. */
  status: number;
}

export interface WebhookReceiver {
  url: string;
  /** Every request that passed `Webhook.verify`, in arrival order (retries included). */
  received: ReceivedWebhook[];
  /** Requests whose signature did not verify. */
  rejected: number;
  /** Decides the answer to each verified request (default 204); 0 never answers (a hung receiver). */
  answer: (request: Omit<ReceivedWebhook, "status">, attempt: number) => number;
  uniqueIds(path?: string): Set<string>;
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function startWebhookReceiver(secret: string): Promise<WebhookReceiver> {
  const verifier = new Webhook(secret);
  const attempts = new Map<string, number>();
  const receiver: WebhookReceiver = {
    url: "",
    received: [],
    rejected: 0,
    answer: () => 204,
    uniqueIds(path) {
      return new Set(
        receiver.received.filter((r) => path === undefined || r.path === path).map((r) => r.id),
      );
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = createServer(async (request, response) => {
    const body = await readBody(request);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (typeof value === "string") headers[name] = value;
    }
    let event: { type: string };
    try {
      event = verifier.verify(body, headers) as { type: string };
    } catch {
      receiver.rejected += 1;
      response.writeHead(400).end();
      return;
    }
    const path = request.url ?? "/";
    const key = `${path} ${headers["webhook-id"]}`;
    const attempt = (attempts.get(key) ?? 0) + 1;
    attempts.set(key, attempt);
    const seen = {
      id: headers["webhook-id"]!,
      instance: headers["x-test-instance"],
      path,
      type: event.type,
      at: performance.now(),
    };
    const status = receiver.answer(seen, attempt);
    receiver.received.push({ ...seen, status });
    if (status !== 0) response.writeHead(status).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}

/** A fresh `whsec_` secret (32 random bytes). */
export function newWebhookSecret(): string {
  return `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64")}`;
}
