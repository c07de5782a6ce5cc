/**
 * A guard that reserves (`budgets()` listed): the request is checked and limited as `withApiKey`
 * does, and `reserve(request)` is held from the key's credits or budget before the handler runs.
 * The handler gets the hold, and either settles it (`hold.settle(usage)`) or returns a body that
 * does (`settlingStream(hold, body, …)`, which settles what the client took when it closes or is
 * cancelled). With `refundOn5xx` (the default), a 5xx the handler answers gives the hold back
 * whole: the host's own failure costs the customer nothing. A hold nobody ends is released by
 * itself after its TTL.
 */
import type { Keyward, Principal, ScopeRequirement } from "@keyward/core";
import type { BudgetsApi, Hold } from "@keyward/core/budgets";
import { withHeaders } from "@keyward/core/toolkit";

export interface WithHoldOptions<Context extends unknown[] = []> {
  scopes?: ScopeRequirement;
  /** The route template, as `withApiKey`'s (`"/completions"` or `"POST /completions"`). */
  route: string;
  /** What to hold for this request: the most it may spend (a whole number ≥ 0). */
  reserve: (request: Request, ...context: Context) => number | Promise<number>;
  environment?: string;
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
  if (options.scopes) keyward.assertScopes(options.scopes);
  if (options.environment !== undefined) keyward.assertEnvironment(options.environment);
  const refundOn5xx = options.refundOn5xx !== false;
  return async (request, ...context) => {
    const cost = await options.reserve(request, ...context);
    const route = options.route.includes(" ")
      ? options.route
      : `${request.method} ${options.route}`;
    const reserved = await keyward.budgets.reserve(request.headers.get("authorization"), {
      route,
      cost,
      ...(options.scopes ? { scopes: options.scopes } : {}),
      ...(options.environment !== undefined ? { environment: options.environment } : {}),
      clientIp: options.clientIp?.(request, ...context) ?? undefined,
      ...(options.resource ? { resource: options.resource(request, ...context) } : {}),
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
