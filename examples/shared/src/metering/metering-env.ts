/**
 * The demo's metering settings, from the environment (the demo contract v0.4):
 * - `KEYWARD_STRIPE_SECRET_KEY` lists metering to Stripe; unset, metering is not listed at all.
 * - `KEYWARD_STRIPE_API_URL` (e.g. `http://127.0.0.1:12111`) points the `stripe` SDK at another
 *   host, a local Stripe-compatible server; unset: Stripe's own API.
 * - `KEYWARD_METER_WINDOW` (`1m` by default) is the aggregation window.
 */

/** The process environment, as `loadDemoConfig` reads it. */
type Environment = Record<string, string | undefined>;

export interface DemoMeteringConfig {
  /** `KEYWARD_STRIPE_SECRET_KEY`: never printed (the banner says only that it is set). */
  stripeSecretKey: string;
  /** `KEYWARD_STRIPE_API_URL`, as the SDK's `host`, `port` and `protocol`; undefined: Stripe's. */
  stripeApi: { host: string; port: number; protocol: "http" | "https" } | undefined;
  /** `KEYWARD_METER_WINDOW`, in ms. */
  windowMs: number;
  /** `KEYWARD_METER_WINDOW` as given (`1m`), for the banner. */
  window: string;
}

const units: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Undefined unless `KEYWARD_STRIPE_SECRET_KEY` is set; throws a `TypeError` naming a bad variable. */
export function parseMeteringEnv(env: Environment): DemoMeteringConfig | undefined {
  const secretKey = env.KEYWARD_STRIPE_SECRET_KEY?.trim();
  if (!secretKey) return undefined;
  if (!/^(sk|rk)_[A-Za-z0-9_]{4,250}$/.test(secretKey)) {
    // The value itself is not repeated: it is a secret, and start-up errors are printed.
    throw new TypeError(
      "KEYWARD_STRIPE_SECRET_KEY must be a Stripe secret or restricted key (sk_test_…, sk_live_…, rk_…)",
    );
  }
  const window = env.KEYWARD_METER_WINDOW?.trim() || "1m";
  const match = /^(\d+)(s|m|h|d)$/.exec(window);
  const windowMs = match ? Number(match[1]) * units[match[2]!]! : Number.NaN;
  if (!(windowMs >= 1000 && windowMs <= 86_400_000 && 86_400_000 % windowMs === 0)) {
    throw new TypeError(
      `KEYWARD_METER_WINDOW must be a whole number and a unit (s, m, h, d) from 1s to 1d that divides a day evenly (1m, 5m, 1h; got "${window}")`,
    );
  }
  return {
    stripeSecretKey: secretKey,
    stripeApi: parseStripeApiUrl(env.KEYWARD_STRIPE_API_URL?.trim()),
    windowMs,
    window,
  };
}

function parseStripeApiUrl(text: string | undefined): DemoMeteringConfig["stripeApi"] {
  if (!text) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {}
  if (
    url === undefined ||
    (url.protocol !== "http:" && url.protocol !== "https:") ||
    (url.pathname !== "/" && url.pathname !== "") ||
    url.username !== "" ||
    url.search !== ""
  ) {
    throw new TypeError(
      `KEYWARD_STRIPE_API_URL must be an http(s) origin such as http://127.0.0.1:12111 (got "${text}")`,
    );
  }
  const protocol = url.protocol === "http:" ? "http" : "https";
  // The SDK takes the port apart from the host (a port inside `host` is not honoured).
  const port = url.port === "" ? (protocol === "http" ? 80 : 443) : Number(url.port);
  return { host: url.hostname.replace(/^\[|\]$/g, ""), port, protocol };
}
