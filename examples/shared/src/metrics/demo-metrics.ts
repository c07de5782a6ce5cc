/**
 * The demo's metrics: an OpenTelemetry meter provider that `otel()` reports to, read by the
 * OpenTelemetry Prometheus exporter, and `GET /metrics` answering its Prometheus text on the
 * demo's own port (the exporter's own server, on a second port, is not started). Scrape it with
 * Prometheus (docs/observability.md). With a `token` (`KEYWARD_METRICS_TOKEN`), the path answers
 * 401 unless the request carries `Authorization: Bearer <token>`: metrics name routes, tiers and
 * rates, which are nobody else's business.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { PrometheusExporter, PrometheusSerializer } from "@opentelemetry/exporter-prometheus";
import { MeterProvider } from "@opentelemetry/sdk-metrics";

export const METRICS_PATH = "/metrics";

const secondsHistograms = ["keyward.verify.duration", "keyward.store.duration"];

export interface DemoMetrics {
  readonly meterProvider: MeterProvider;
  /** `GET /metrics` (and HEAD) as Prometheus text; `null` for every other request. */
  handle(request: Request): Promise<Response | null>;
  /** The same on a Node server, before the framework: `true` when it answered. */
  answerOnNode(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  close(): Promise<void>;
}

export interface DemoMetricsOptions {
  /** The bearer token `GET /metrics` needs; undefined: none (a development server's default). */
  token?: string | undefined;
}

export function createDemoMetrics(options: DemoMetricsOptions = {}): DemoMetrics {
  const exporter = new PrometheusExporter({ preventServerStart: true });
  const meterProvider = new MeterProvider({
    readers: [exporter],
    // Prometheus names carry their unit (`keyward_verify_duration_seconds_bucket`), which this
    // exporter does not add by itself: the two histograms in seconds are renamed for it.
    views: secondsHistograms.map((instrumentName) => ({
      instrumentName,
      name: `${instrumentName}.seconds`,
    })),
  });
  const serializer = new PrometheusSerializer();

  const render = async (): Promise<string> => {
    const { resourceMetrics, errors } = await exporter.collect();
    for (const error of errors) console.error("keyward demo metrics:", error);
    return serializer.serialize(resourceMetrics);
  };
  const isMetrics = (method: string | undefined, pathname: string | undefined) =>
    pathname === METRICS_PATH && (method === "GET" || method === "HEAD");
  const headers = { "content-type": "text/plain; version=0.0.4; charset=utf-8" };
  const expected = options.token === undefined ? undefined : `Bearer ${options.token}`;
  /** Whether the `Authorization` header is the one the token asks for (or none is asked). */
  const authorized = (authorization: string | null | undefined) =>
    expected === undefined ||
    (typeof authorization === "string" && sameText(authorization, expected));
  const unauthorized = {
    status: 401,
    headers: {
      "content-type": "application/json",
      "www-authenticate": 'Bearer realm="metrics"',
    },
    body: JSON.stringify({
      detail: "GET /metrics needs Authorization: Bearer <KEYWARD_METRICS_TOKEN>",
      code: "unauthorized",
    }),
  };

  return {
    meterProvider,
    async handle(request) {
      if (!isMetrics(request.method, new URL(request.url).pathname)) return null;
      if (!authorized(request.headers.get("authorization"))) {
        return new Response(request.method === "HEAD" ? null : unauthorized.body, {
          status: unauthorized.status,
          headers: unauthorized.headers,
        });
      }
      const body = await render();
      return new Response(request.method === "HEAD" ? null : body, { headers });
    },
    async answerOnNode(req, res) {
      if (!isMetrics(req.method, req.url?.split("?")[0])) return false;
      if (!authorized(req.headers.authorization)) {
        res.writeHead(unauthorized.status, unauthorized.headers);
        res.end(req.method === "HEAD" ? undefined : unauthorized.body);
        return true;
      }
      const body = await render();
      res.writeHead(200, headers);
      res.end(req.method === "HEAD" ? undefined : body);
      return true;
    },
    close: () => meterProvider.shutdown(),
  };
}

/** The metrics in front of a Fetch handler: `/metrics` first, then the app. */
export function withDemoMetrics(
  metrics: DemoMetrics,
  app: (request: Request) => Promise<Response>,
): (request: Request) => Promise<Response> {
  return async (request) => (await metrics.handle(request)) ?? app(request);
}

/** Compares two strings in time that depends on their length only, not on where they differ. */
function sameText(given: string, expected: string): boolean {
  let differ = given.length ^ expected.length;
  for (let i = 0; i < expected.length; i++) {
    differ |= (given.charCodeAt(i) || 0) ^ expected.charCodeAt(i);
  }
  return differ === 0;
}
