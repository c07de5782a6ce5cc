/**
 * A Stripe-compatible server for tests: the part of Stripe's API that meter events use, enforcing
 * the rules Stripe documents for them, so the real `stripe` SDK can be pointed at it
 * (`new Stripe(key, { host: "127.0.0.1", port, protocol: "http" })`). Stripe has no local server of
 * its own; each rule below names the page of Stripe's API documentation it follows.
 *
 * Besides the rules, a test can make it answer the next requests 429 (`rateLimitNext`), or take an
 * event and drop the connection before replying (`dropReplyAfterTaking`), as a network would.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface LocalStripeOptions {
  secretKey: string;
  /** Meters by event name (created as Stripe's `billing.meters.create` would). */
  meters: readonly string[];
  /** The server's clock, epoch ms (a test's manual clock). */
  now?: () => number;
  /**
   * Called once a meter event was taken, before its reply is written (with the client's
   * User-Agent, which names the SDK's `appInfo`): a test may kill the sender there.
   */
  taken?: (userAgent: string) => Promise<void> | void;
}

export interface StoredMeterEvent {
  eventName: string;
  identifier: string;
  customer: string;
  value: number;
  /** Epoch seconds. */
  timestamp: number;
  /** When the server took it, epoch ms. */
  takenAt: number;
}

export interface LocalStripe {
  readonly port: number;
  readonly events: readonly StoredMeterEvent[];
  /** Requests refused for a repeated identifier. */
  readonly duplicates: number;
  /** v2 meter event sessions created. */
  readonly sessions: number;
  /** v2 stream requests refused 401 for a session token that had expired (or never existed). */
  readonly expiredSessionRefusals: number;
  /** The next `count` meter event requests are answered 429 with `Retry-After: seconds`. */
  rateLimitNext(count: number, retryAfterSeconds: number): void;
  /** The next `count` meter event requests are handled, then the connection is destroyed with no reply. */
  dropReplyAfterTaking(count: number): void;
  /** Per customer, the sum of values for an event name. */
  totals(eventName: string): Map<string, number>;
  close(): Promise<void>;
}

const day = 86_400_000;

export async function localStripe(options: LocalStripeOptions): Promise<LocalStripe> {
  const now = options.now ?? Date.now;
  const events: StoredMeterEvent[] = [];
  const meterIds = new Map(options.meters.map((name, index) => [name, `mtr_test_${index + 1}`]));
  const sessions = new Map<string, number>();
  let duplicates = 0;
  let rateLimited = 0;
  let retryAfter = 1;
  let drops = 0;
  let sessionCount = 0;
  let expiredSessionRefusals = 0;

  /**
   * Meter events: "Meter events … identifier: A unique identifier for the event. … We'll enforce
   * uniqueness within a rolling period of at least 24 hours." (API reference, "Create a billing
   * meter event"). Stripe answers a repeat 400 with "An event already exists with identifier …"
   * and `Stripe-Should-Retry: false`.
   */
  const isDuplicate = (identifier: string) =>
    events.some((event) => event.identifier === identifier && event.takenAt > now() - day);

  /**
   * "timestamp: The time of the event. Must be within the past 35 calendar days or up to 5 minutes
   * in the future." (API reference, "Create a billing meter event").
   */
  const timestampError = (seconds: number) => {
    const ms = seconds * 1000;
    if (ms < now() - 35 * day) return "Timestamp must be within the past 35 calendar days";
    if (ms > now() + 5 * 60_000) return "Timestamp must not be more than 5 minutes in the future";
    return undefined;
  };

  const take = (
    response: ServerResponse,
    fields: {
      eventName?: string;
      identifier?: string;
      payload: Record<string, string>;
      timestamp?: number;
    },
  ): { status: number; error?: string; retry?: "false" } => {
    const { eventName, identifier, payload } = fields;
    if (eventName === undefined || !meterIds.has(eventName)) {
      return { status: 400, error: `No active meter was found for event_name ${eventName}` };
    }
    if (identifier === undefined || identifier.length > 100) {
      return { status: 400, error: "identifier must be at most 100 characters" };
    }
    if (isDuplicate(identifier)) {
      duplicates++;
      return {
        status: 400,
        error: `An event already exists with identifier ${identifier}.`,
        retry: "false",
      };
    }
    const timestamp = fields.timestamp ?? Math.floor(now() / 1000);
    const late = timestampError(timestamp);
    if (late) return { status: 400, error: late };
    // "payload … value: The value of the event, a string holding a whole number" ("Recording
    // usage", payload keys: `stripe_customer_id` and `value` by default).
    const customer = payload.stripe_customer_id;
    const value = payload.value;
    if (customer === undefined || value === undefined || !/^\d+$/.test(value)) {
      return {
        status: 400,
        error: "payload needs stripe_customer_id and a whole-number value string",
      };
    }
    events.push({
      eventName,
      identifier,
      customer,
      value: Number(value),
      timestamp,
      takenAt: now(),
    });
    void response;
    return { status: 200 };
  };

  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      try {
        handle(request, response, Buffer.concat(chunks).toString("utf8"));
      } catch (cause) {
        reply(response, 500, { error: { message: String(cause), type: "api_error" } });
      }
    });
  });

  const handle = (request: IncomingMessage, response: ServerResponse, body: string) => {
    const url = new URL(request.url ?? "/", "http://local");
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
    // Meter event stream: "Authentication: … the session token from a meter event session, valid
    // for 15 minutes" (API reference v2, "Meter Event Session", "Create a meter event stream").
    if (url.pathname === "/v2/billing/meter_event_stream" && request.method === "POST") {
      const expiresAt = bearer === undefined ? undefined : sessions.get(bearer);
      if (expiresAt === undefined || expiresAt <= now()) {
        expiredSessionRefusals++;
        return reply(response, 401, {
          error: { type: "temporary_session_expired", message: "The session token has expired" },
        });
      }
      if (limited(response)) return;
      const parsed = JSON.parse(body) as {
        events: {
          event_name: string;
          identifier: string;
          payload: Record<string, string>;
          timestamp: string;
        }[];
      };
      // "Events are processed asynchronously, including validation": 200 whatever the events hold;
      // an invalid or repeated one is dropped without a word.
      for (const event of parsed.events) {
        take(response, {
          eventName: event.event_name,
          identifier: event.identifier,
          payload: event.payload,
          timestamp: Math.floor(Date.parse(event.timestamp) / 1000),
        });
      }
      return reply(response, 200, {});
    }
    // Authentication: "Authentication to the API is performed with HTTP Bearer auth … using your
    // API key" (API reference, "Authentication"): 401 without the secret key.
    if (bearer !== options.secretKey) {
      return reply(response, 401, {
        error: { type: "invalid_request_error", message: "Invalid API Key provided" },
      });
    }
    if (url.pathname === "/v2/billing/meter_event_session" && request.method === "POST") {
      sessionCount++;
      const token = `mes_test_${sessionCount}`;
      const expiresAt = now() + 15 * 60_000;
      sessions.set(token, expiresAt);
      return reply(response, 200, {
        id: `mes_${sessionCount}`,
        object: "v2.billing.meter_event_session",
        authentication_token: token,
        created: new Date(now()).toISOString(),
        expires_at: new Date(expiresAt).toISOString(),
        livemode: false,
      });
    }
    if (url.pathname === "/v1/billing/meter_events" && request.method === "POST") {
      if (limited(response)) return;
      const form = new URLSearchParams(body);
      const payload: Record<string, string> = {};
      for (const [name, value] of form) {
        const key = /^payload\[(.+)\]$/.exec(name)?.[1];
        if (key !== undefined) payload[key] = value;
      }
      const timestamp = form.get("timestamp");
      const outcome = take(response, {
        eventName: form.get("event_name") ?? undefined,
        identifier: form.get("identifier") ?? undefined,
        payload,
        ...(timestamp === null ? {} : { timestamp: Number(timestamp) }),
      });
      // A reply lost on the way back: the request was handled, the client hears nothing.
      if (drops > 0) {
        drops--;
        request.socket.destroy();
        return;
      }
      if (outcome.status !== 200) {
        const headers: Record<string, string> = outcome.retry
          ? { "Stripe-Should-Retry": outcome.retry }
          : {};
        return reply(
          response,
          outcome.status,
          { error: { type: "invalid_request_error", message: outcome.error } },
          headers,
        );
      }
      const event = events.at(-1)!;
      const answer = () =>
        reply(response, 200, {
          object: "billing.meter_event",
          event_name: event.eventName,
          identifier: event.identifier,
          payload: form.get("payload[value]") ? payload : {},
          timestamp: event.timestamp,
          livemode: false,
        });
      const waited = options.taken?.(request.headers["user-agent"] ?? "");
      if (waited === undefined) return answer();
      void waited.then(answer);
      return;
    }
    if (url.pathname === "/v1/billing/meters" && request.method === "GET") {
      return reply(response, 200, {
        object: "list",
        url: "/v1/billing/meters",
        has_more: false,
        data: [...meterIds].map(([eventName, id]) => ({
          id,
          object: "billing.meter",
          event_name: eventName,
          status: "active",
        })),
      });
    }
    const summaries = /^\/v1\/billing\/meters\/([^/]+)\/event_summaries$/.exec(url.pathname);
    if (summaries && request.method === "GET") {
      // "customer, start_time, end_time: required" (API reference, "List billing meter event
      // summaries"); the summary's aggregated_value sums the events in [start_time, end_time).
      const eventName = [...meterIds].find(([, id]) => id === summaries[1])?.[0];
      const customer = url.searchParams.get("customer");
      const startTime = Number(url.searchParams.get("start_time"));
      const endTime = Number(url.searchParams.get("end_time"));
      if (
        eventName === undefined ||
        !customer ||
        !Number.isFinite(startTime) ||
        !Number.isFinite(endTime)
      ) {
        return reply(response, 400, {
          error: {
            type: "invalid_request_error",
            message: "customer, start_time and end_time are required",
          },
        });
      }
      const sum = events
        .filter((event) => event.eventName === eventName && event.customer === customer)
        .filter((event) => event.timestamp >= startTime && event.timestamp < endTime)
        .reduce((total, event) => total + event.value, 0);
      return reply(response, 200, {
        object: "list",
        url: url.pathname,
        has_more: false,
        data: [
          {
            id: "mtrusg_1",
            object: "billing.meter_event_summary",
            aggregated_value: sum,
            start_time: startTime,
            end_time: endTime,
            livemode: false,
            meter: summaries[1],
          },
        ],
      });
    }
    return reply(response, 404, {
      error: {
        type: "invalid_request_error",
        message: `Unrecognized request URL (${request.method}: ${url.pathname})`,
      },
    });
  };

  /** Rate limits: "429 Too Many Requests … Retry-After" (API reference, "Rate limits"). */
  const limited = (response: ServerResponse): boolean => {
    if (rateLimited === 0) return false;
    rateLimited--;
    reply(
      response,
      429,
      {
        error: { type: "invalid_request_error", code: "rate_limit", message: "Too many requests" },
      },
      { "Retry-After": String(retryAfter) },
    );
    return true;
  };

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    events,
    get duplicates() {
      return duplicates;
    },
    get sessions() {
      return sessionCount;
    },
    get expiredSessionRefusals() {
      return expiredSessionRefusals;
    },
    rateLimitNext(count, seconds) {
      rateLimited = count;
      retryAfter = seconds;
    },
    dropReplyAfterTaking(count) {
      drops = count;
    },
    totals(eventName) {
      const sums = new Map<string, number>();
      for (const event of events) {
        if (event.eventName !== eventName) continue;
        sums.set(event.customer, (sums.get(event.customer) ?? 0) + event.value);
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

function reply(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, {
    "Content-Type": "application/json",
    "Request-Id": "req_local",
    ...headers,
  });
  response.end(JSON.stringify(body));
}
