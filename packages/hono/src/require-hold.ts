/**
 * Hono middleware that reserves (`budgets()` listed): checked and limited as `requireApiKey` does,
 * holding `reserve(c)` from the key's credits or budget. The handler finds `c.get("keyward")` as
 * usual and `c.get("keywardHold")`, the hold, and settles it (`hold.settle(n)`) or returns
 * `settlingStream(hold, …)` as its body (settled with what the client took, when the stream ends or
 * is cancelled). With `refundOn5xx` (the default) a 5xx answer, or a throw, gives the hold back.
 */
import type { Keyward } from "@keyward/core";
import type { BudgetsApi, Hold, ReserveOptions } from "@keyward/core/budgets";
import { routeWithMethod, withHeaders } from "@keyward/core/toolkit";
import type { Context, MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import type { KeywardContext } from "./types.js";

/**
 * `reserve`'s options (`ReserveOptions`: `scopes`, `environment`, and every `verify` option a
 * listed feature declares), all passed on as given, with the route, the hold, the client address
 * and the resources read from the request.
 */
export interface RequireHoldOptions
  extends Omit<ReserveOptions, "route" | "cost" | "clientIp" | "resource"> {
  /** The route template; default Hono's matched route path. */
  route?: string;
  /** What to hold for this request: the most it may spend (a whole number ≥ 0). */
  reserve: (c: Context) => number | Promise<number>;
  /** The client address, as `requireApiKey`'s `clientIp`. */
  clientIp?: (c: Context) => string | null | undefined;
  /** The resources a request is about, from the request, as `requireApiKey`'s `resource`. */
  resource?: (c: Context) => Readonly<Record<string, string>> | undefined;
  /** Give the hold back whole when the handler answers 5xx or throws; default true. */
  refundOn5xx?: boolean;
}

/** Hono `Env` with what `requireHold` sets. */
export interface KeywardHoldEnv {
  Variables: { keyward: KeywardContext; keywardHold: Hold };
}

export function requireHold(
  keyward: Keyward & { budgets: BudgetsApi },
  options: RequireHoldOptions,
): MiddlewareHandler<KeywardHoldEnv> {
  if (typeof keyward.budgets?.reserve !== "function") {
    throw new TypeError("requireHold needs an instance with budgets() listed");
  }
  // The guard's own; every other option goes to reserve as given (a feature's too).
  const { route, reserve, clientIp, resource, refundOn5xx: refund, ...fixed } = options;
  if (fixed.scopes) keyward.assertScopes(fixed.scopes);
  if (fixed.environment !== undefined) keyward.assertEnvironment(fixed.environment);
  const refundOn5xx = refund !== false;
  return async (c, next) => {
    const cost = await reserve(c);
    const reserved = await keyward.budgets.reserve(c.req.header("authorization"), {
      ...fixed,
      route: routeWithMethod(c.req.method, route ?? routePath(c)),
      cost,
      clientIp: clientIp?.(c) ?? undefined,
      resource: resource?.(c),
    });
    if (!reserved.ok) return reserved.error.toResponse(reserved.headers);
    const { hold } = reserved;
    c.set("keyward", { principal: reserved.principal, rateLimit: reserved.rateLimit });
    c.set("keywardHold", hold);
    try {
      await next();
    } catch (error) {
      if (refundOn5xx) await hold.release();
      throw error;
    }
    // Hono turns a handler's throw into a 500 response (c.error) rather than rethrowing.
    if (refundOn5xx && (c.res.status >= 500 || c.error !== undefined)) await hold.release();
    c.res = withHeaders(c.res, reserved.headers);
  };
}
