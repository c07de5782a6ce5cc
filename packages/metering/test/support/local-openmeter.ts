/**
 * An OpenMeter-shaped CloudEvents sink for tests: `POST /api/v1/events` takes a CloudEvent or a
 * batch (`application/cloudevents-batch+json`) with a bearer token, and deduplicates on source + id
 * ("Consumers MAY assume that Events with identical source and id are duplicates", CloudEvents
 * 1.0, "id"; OpenMeter's ingest documents the same deduplication); `GET /api/v1/meters/{slug}/query`
 * sums a meter's values per subject over [from, to) (OpenMeter's meter query, `data[].value`).
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface TakenCloudEvent {
  id: string;
  source: string;
  type: string;
  subject: string;
  time: string;
  value: number;
}

export interface LocalOpenMeter {
  readonly url: string;
  readonly events: readonly TakenCloudEvent[];
  /** Events dropped as repeats of source + id. */
  readonly duplicates: number;
  totals(type: string): Map<string, number>;
  close(): Promise<void>;
}

export async function localOpenMeter(options: {
  token: string;
  /** Called once a batch was taken, before the reply (with the `x-test-instance` header). */
  taken?: (instance: string) => Promise<void> | void;
}): Promise<LocalOpenMeter> {
  const events: TakenCloudEvent[] = [];
  const seen = new Set<string>();
  let duplicates = 0;

  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const { status, body } = handle(request, Buffer.concat(chunks).toString("utf8"));
      const answer = () => {
        response.writeHead(status, { "content-type": "application/json" });
        response.end(JSON.stringify(body));
      };
      const waited =
        status === 204 ? options.taken?.(String(request.headers["x-test-instance"])) : undefined;
      if (waited === undefined) answer();
      else void waited.then(answer);
    });
  });

  const handle = (request: IncomingMessage, text: string): { status: number; body: unknown } => {
    if (request.headers.authorization !== `Bearer ${options.token}`) {
      return { status: 401, body: { title: "Unauthorized" } };
    }
    const url = new URL(request.url ?? "/", "http://local");
    if (url.pathname === "/api/v1/events" && request.method === "POST") {
      const parsed = JSON.parse(text) as unknown;
      const batch = (Array.isArray(parsed) ? parsed : [parsed]) as Record<string, unknown>[];
      // Validated whole before any is taken: specversion 1.0, and id, source, type, subject.
      for (const event of batch) {
        if (
          event.specversion !== "1.0" ||
          typeof event.id !== "string" ||
          typeof event.source !== "string" ||
          typeof event.type !== "string" ||
          typeof event.subject !== "string"
        ) {
          return { status: 400, body: { title: "invalid CloudEvent" } };
        }
      }
      for (const event of batch) {
        const key = `${event.source}\u0000${event.id}`;
        if (seen.has(key)) {
          duplicates++;
          continue;
        }
        seen.add(key);
        events.push({
          id: event.id as string,
          source: event.source as string,
          type: event.type as string,
          subject: event.subject as string,
          time: event.time as string,
          value: Number((event.data as { value?: unknown } | undefined)?.value ?? 0),
        });
      }
      return { status: 204, body: null };
    }
    const query = /^\/api\/v1\/meters\/([^/]+)\/query$/.exec(url.pathname);
    if (query && request.method === "GET") {
      const subject = url.searchParams.get("subject");
      const from = Date.parse(url.searchParams.get("from") ?? "");
      const to = Date.parse(url.searchParams.get("to") ?? "");
      const value = events
        .filter(
          (event) => event.type === decodeURIComponent(query[1]!) && event.subject === subject,
        )
        .filter((event) => Date.parse(event.time) >= from && Date.parse(event.time) < to)
        .reduce((sum, event) => sum + event.value, 0);
      return { status: 200, body: { data: [{ subject, value }] } };
    }
    return { status: 404, body: { title: "Not Found" } };
  };

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    events,
    get duplicates() {
      return duplicates;
    },
    totals(type) {
      const sums = new Map<string, number>();
      for (const event of events) {
        if (event.type === type)
          sums.set(event.subject, (sums.get(event.subject) ?? 0) + event.value);
      }
      return sums;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
