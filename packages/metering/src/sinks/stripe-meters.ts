/**
 * Stripe Billing meters as a sink, through the official `stripe` SDK (a peer dependency: the host
 * creates the client, with its secret key and, for a local server, its `host`, `port` and
 * `protocol`).
 *
 * Each window's usage is one meter event: `event_name` the meter's, `identifier` deterministic (so
 * a repeat is dropped by Stripe), `timestamp` the window's start, `payload` the customer and the
 * value as a string. By default through `billing.meterEvents.create`, one call per event; with
 * `stream: true`, through the v2 meter event stream (100 events a call, on a session token that
 * expires after 15 minutes, renewed a minute before; a session Stripe answers 401 for is replaced
 * and the batch sent once more at once).
 *
 * Stripe's rules, as its API reference states them for meter events, and what this sink does:
 * - identifiers are unique within a rolling 24 hours: a send whose outcome stayed uncertain longer
 *   is not repeated (`dedupWindowMs`, the adjustments report);
 * - timestamps within the past 35 days and at most 5 minutes ahead: older windows are adjustments
 *   (`maxAgeMs`, 35 days less an hour of margin); a window is exported only once it has closed;
 * - a 429 is retried after its `Retry-After` (read from the error's headers: the SDK retries no
 *   429 itself);
 * - a re-sent identifier is answered 400 "An event already exists with identifier …": the event
 *   is held, so that counts as acknowledged.
 * The v2 stream validates asynchronously (a 200 even for an invalid event), so events are checked
 * before they are sent: a whole-number value > 0, a customer id.
 */
import type Stripe from "stripe";
import type { MeterEvent, MeterSink, SendOutcome, SinkTotal } from "../export/meter-sink.js";

export interface StripeMetersOptions {
  /** The host's `new Stripe(secretKey, { ... })`. */
  stripe: Stripe;
  /** Ledger meter → Stripe meter `event_name`: `{ requests: "keyward_api_requests" }`. */
  meters: Readonly<Record<string, string>>;
  /**
   * The Stripe customer (`cus_…`) billed for an owner's usage. Stripe needs an existing customer;
   * mapping owners to customers is the host's.
   */
  customer: (ownerId: string) => string | Promise<string>;
  /** The v2 meter event stream instead of one `meterEvents.create` per event. */
  stream?: boolean;
  /** The payload keys the meters were created with (Stripe's defaults). */
  payloadKeys?: { customer?: string; value?: string };
  /** Names the sink's progress in the ledger (default `stripe`). */
  name?: string;
}

const day = 86_400_000;

/** One event of the v2 stream: v1's fields, the timestamp in RFC 3339. */
interface StreamEvent {
  event_name: string;
  identifier: string;
  payload: Record<string, string>;
  timestamp: string;
}
const alreadyExists = "An event already exists with identifier";

export function stripeMeters(options: StripeMetersOptions): MeterSink {
  checkOptions(options);
  const { stripe, meters, customer } = options;
  const customerKey = options.payloadKeys?.customer ?? "stripe_customer_id";
  const valueKey = options.payloadKeys?.value ?? "value";
  let session: { token: string; expiresAt: number } | undefined;

  const eventOf = async (event: MeterEvent) => {
    const customerId = await customer(event.ownerId);
    if (typeof customerId !== "string" || customerId.length === 0) {
      throw new TypeError(`stripeMeters: customer() answered no customer id for an owner`);
    }
    return {
      event_name: meters[event.meter]!,
      identifier: event.identifier,
      payload: { [customerKey]: customerId, [valueKey]: String(event.value) },
    };
  };

  const sendOne = async (event: MeterEvent): Promise<SendOutcome> => {
    let body: Awaited<ReturnType<typeof eventOf>>;
    try {
      body = await eventOf(event);
    } catch (cause) {
      return { kind: "rejected", error: messageOf(cause) };
    }
    try {
      await stripe.billing.meterEvents.create({
        ...body,
        timestamp: Math.floor(event.windowStart / 1000),
      });
      return { kind: "acknowledged" };
    } catch (cause) {
      return outcomeOfError(cause);
    }
  };

  /** The session's token, and whether it was made by an earlier call (it may have expired since). */
  const sessionToken = async (): Promise<{ token: string; reused: boolean }> => {
    if (session !== undefined && session.expiresAt - 60_000 > Date.now()) {
      return { token: session.token, reused: true };
    }
    const created = await stripe.v2.billing.meterEventSession.create();
    session = {
      token: created.authentication_token,
      expiresAt: Date.parse(created.expires_at),
    };
    return { token: session.token, reused: false };
  };

  const streamBatch = async (bodies: readonly StreamEvent[]) => {
    const { token, reused } = await sessionToken();
    try {
      await stripe.v2.billing.meterEventStream.create({ events: [...bodies] }, { apiKey: token });
    } catch (cause) {
      // A 401 on a session kept from before: Stripe says it expired (its 15 minutes were up by
      // Stripe's clock, whatever ours said). Nothing was taken: a new session, and the batch once more.
      if (statusOf(cause) !== 401 || !reused) throw cause;
      session = undefined;
      const renewed = await sessionToken();
      await stripe.v2.billing.meterEventStream.create(
        { events: [...bodies] },
        { apiKey: renewed.token },
      );
    }
  };

  const sendStream = async (events: readonly MeterEvent[]): Promise<SendOutcome[]> => {
    const bodies: StreamEvent[] = [];
    const outcomes: (SendOutcome | undefined)[] = [];
    for (const event of events) {
      try {
        const body = await eventOf(event);
        bodies.push({ ...body, timestamp: new Date(event.windowStart).toISOString() });
        outcomes.push(undefined);
      } catch (cause) {
        outcomes.push({ kind: "rejected", error: messageOf(cause) });
      }
    }
    let outcome: SendOutcome;
    try {
      if (bodies.length > 0) await streamBatch(bodies);
      outcome = { kind: "acknowledged" };
    } catch (cause) {
      // A session refused even when new: made again on the next try.
      if (statusOf(cause) === 401) session = undefined;
      outcome = outcomeOfError(cause);
    }
    return outcomes.map((one) => one ?? outcome);
  };

  return {
    name: options.name ?? "stripe",
    meters: Object.keys(meters),
    maxAgeMs: 35 * day - 3_600_000,
    dedupWindowMs: day - 3_600_000,
    batchSize: options.stream ? 100 : 25,
    async send(events) {
      if (options.stream) return sendStream(events);
      return Promise.all(events.map(sendOne));
    },
    async totals(owners, from, to) {
      const meterIds = new Map<string, string>();
      for await (const meter of stripe.billing.meters.list({ limit: 100 })) {
        meterIds.set(meter.event_name, meter.id);
      }
      const totals: SinkTotal[] = [];
      for (const ownerId of owners) {
        const customerId = await customer(ownerId);
        for (const [ledgerMeter, eventName] of Object.entries(meters)) {
          const meterId = meterIds.get(eventName);
          if (meterId === undefined) {
            throw new Error(`Stripe has no meter with event_name ${JSON.stringify(eventName)}`);
          }
          let total = 0;
          for await (const summary of stripe.billing.meters.listEventSummaries(meterId, {
            customer: customerId,
            start_time: Math.floor(from / 1000),
            end_time: Math.floor(to / 1000),
          })) {
            total += summary.aggregated_value;
          }
          totals.push({ ownerId, meter: ledgerMeter, total });
        }
      }
      return totals;
    },
  };
}

/** What a Stripe error means for the event: taken, not taken, maybe taken, or never. */
function outcomeOfError(cause: unknown): SendOutcome {
  const error = messageOf(cause);
  const status = statusOf(cause);
  if (status === 400 && error.includes(alreadyExists)) return { kind: "acknowledged" };
  if (status === 429) {
    const retryAfterMs = retryAfterOf(cause);
    return retryAfterMs === undefined
      ? { kind: "retry", error }
      : { kind: "retry", error, retryAfterMs };
  }
  // No answer (a connection dropped, a timeout), or a server error: Stripe may hold the event.
  if (status === undefined || status >= 500) return { kind: "uncertain", error };
  // Credentials or permissions: nothing was taken, and the host must fix its key.
  if (status === 401 || status === 403 || status === 409) return { kind: "retry", error };
  return { kind: "rejected", error };
}

function statusOf(cause: unknown): number | undefined {
  const status = (cause as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === "number" ? status : undefined;
}

/** `Retry-After` in seconds (or an HTTP date) from the error's headers, as ms. */
function retryAfterOf(cause: unknown): number | undefined {
  const headers = (cause as { headers?: Record<string, unknown> } | null)?.headers;
  const raw = headers?.["retry-after"] ?? headers?.["Retry-After"];
  if (typeof raw !== "string") return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds * 1000);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function messageOf(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}

function checkOptions(options: StripeMetersOptions): void {
  if (options === null || typeof options !== "object") {
    throw new TypeError("stripeMeters: pass { stripe, meters, customer }");
  }
  const stripe = options.stripe as { billing?: { meterEvents?: unknown } } | undefined;
  if (stripe?.billing?.meterEvents === undefined) {
    throw new TypeError(
      "stripeMeters: `stripe` must be a client from the `stripe` package (new Stripe(secretKey))",
    );
  }
  const entries = Object.entries(options.meters ?? {});
  if (entries.length === 0) {
    throw new TypeError(
      'stripeMeters: `meters` maps ledger meters to Stripe event names: { requests: "keyward_api_requests" }',
    );
  }
  for (const [meter, eventName] of entries) {
    if (typeof eventName !== "string" || !/^[A-Za-z0-9_.:-]{1,100}$/.test(eventName)) {
      throw new TypeError(`stripeMeters: meters.${meter} must be a Stripe meter's event_name`);
    }
  }
  if (typeof options.customer !== "function") {
    throw new TypeError(
      "stripeMeters: `customer` maps an owner id to a Stripe customer id (cus_…)",
    );
  }
}
