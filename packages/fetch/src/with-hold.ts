/**
 * A guard that reserves (`budgets()` listed): the request is checked and limited as `withApiKey`
 * does, and `reserve(request)` is held from the key's credits or budget before the handler runs.
 * The handler gets the hold, and either settles it (`hold.settle(usage)`) or returns a body that
 * does (`settlingStream(hold, body, …)`, which settles what the client took when it closes or is
 * cancelled). With `refundOn5xx` (the default), a 5xx the handler answers gives the hold back
 * whole: the host's own failure costs the customer nothing. A hold nobody ends is released by
 * itself after its TTL.
 */
import type { Keyward, Principal } from "@keyward/core";
import type { BudgetsApi, Hold, ReserveOptions } from "@keyward/core/budgets";
import { withHeaders } from "@keyward/core/toolkit";

/**
 * `reserve`'s options (`ReserveOptions`: `scopes`, `environment`, and every `verify` option a
 * listed feature declares), all passed on as given, with the route, the hold and the resources
 * read from the request and its client address.
 */
export interface WithHoldOptions<Context extends unknown[] = []>
  extends Omit<ReserveOptions, "route" | "cost" | "clientIp" | "resource"> {
  /** The route template, as `withApiKey`'s (`"/completions"` or `"POST /completions"`). */
  route: string;
  /** What to hold for this request: the most it may spend (a whole number ≥ 0). */
  reserve: (request: Request, ...context: Context) => number | Promise<number>;
  clientIp?: (request: Request, ...context: Context) => string | null | undefined;
  resource?: (
    request: Request,
    ...context: Context
  ) => Readonly<Record<string, string>> | undefined;
  /** Give the hold back whole when the handler answers 5xx; default true. */
  refundOn5xx?: boolean;
}

export type HoldHandler = (
  request: Request,
  principal: Principal,
  hold: Hold,
) => Response | Promise<Response>;

export function withHold<Context extends unknown[] = []>(
  keyward: Keyward & { budgets: BudgetsApi },
  options: WithHoldOptions<Context>,
  handler: HoldHandler,
): (request: Request, ...context: Context) => Promise<Response> {
  if (typeof keyward.budgets?.reserve !== "function") {
    throw new TypeError("withHold needs an instance with budgets() listed");
  }
  // The guard's own; every other option goes to reserve as given (a feature's too).
  const { route, reserve, clientIp, resource, refundOn5xx: refund, ...fixed } = options;
  if (fixed.scopes) keyward.assertScopes(fixed.scopes);
  if (fixed.environment !== undefined) keyward.assertEnvironment(fixed.environment);
  const refundOn5xx = refund !== false;
  return async (request, ...context) => {
    const cost = await reserve(request, ...context);
    const reserved = await keyward.budgets.reserve(request.headers.get("authorization"), {
      ...fixed,
      route: route.includes(" ") ? route : `${request.method} ${route}`,
      cost,
      clientIp: clientIp?.(request, ...context) ?? undefined,
      resource: resource?.(request, ...context),
    });
    if (!reserved.ok) return reserved.error.toResponse(reserved.headers);
    const { hold } = reserved;
    let response: Response;
    try {
      response = await handler(request, reserved.principal, hold);
    } catch (error) {
      if (refundOn5xx) await hold.release();
      throw error;
    }
    if (refundOn5xx && response.status >= 500) await hold.release();
    return withHeaders(response, reserved.headers);
  };
}
