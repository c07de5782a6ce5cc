/**
 * Express middleware that reserves (`budgets()` listed): checked and limited as `requireApiKey`
 * does, holding `reserve(req)` from the key's credits or budget. An admitted request gets
 * `req.keyward` as usual and `req.keywardHold`: the hold, and `sent(n)` to count what the response
 * has delivered (tokens, events). The hold then ends by itself with the response:
 *
 * - the response finished: what was counted is settled (unless the handler settled it already);
 * - the client went away first: what was counted is settled, or the hold released whole with
 *   `onAbort: "release"`;
 * - the handler answered 5xx: the hold is given back whole (`refundOn5xx`, the default).
 */
import type { Keyward } from "@keyward/core";
import type { BudgetsApi, Hold, ReserveOptions } from "@keyward/core/budgets";
import { headerValue } from "@keyward/core/node-http";
import { routeWithMethod } from "@keyward/core/toolkit";
import type { Request, RequestHandler } from "express";
import { sendResponse } from "./send-response.js";

/**
 * `reserve`'s options (`ReserveOptions`: `scopes`, `environment`, and every `verify` option a
 * listed feature declares), all passed on as given, with the route, the hold and the resources
 * read from the request, and the client address the guard's own (`req.ip`).
 */
export interface RequireHoldOptions
  extends Omit<ReserveOptions, "route" | "cost" | "clientIp" | "resource"> {
  /** The route template; default Express's matched route, as `requireApiKey`. */
  route?: string;
  /** What to hold for this request: the most it may spend (a whole number ≥ 0). */
  reserve: (req: Request) => number | Promise<number>;
  /** The resources a request is about, from the request, as `requireApiKey`'s `resource`. */
  resource?: (req: Request) => Readonly<Record<string, string>> | undefined;
  /** On a client's abort: settle what was sent (default), or give the hold back whole. */
  onAbort?: "sent" | "release";
  /** Give the hold back whole when the response is a 5xx; default true. */
  refundOn5xx?: boolean;
}

/** What `requireHold` leaves on `req.keywardHold`. */
export interface KeywardHoldState {
  hold: Hold;
  /** Counts `n` more delivered; what is counted is settled when the response ends. */
  sent(n?: number): void;
}

declare global {
  namespace Express {
    interface Request {
      /** Set by `requireHold` on the requests it admits. */
      keywardHold?: KeywardHoldState;
    }
  }
}

export function requireHold(
  keyward: Keyward & { budgets: BudgetsApi },
  options: RequireHoldOptions,
): RequestHandler {
  if (typeof keyward.budgets?.reserve !== "function") {
    throw new TypeError("requireHold needs an instance with budgets() listed");
  }
  // The guard's own; every other option goes to reserve as given (a feature's too).
  const { route, reserve, resource, onAbort, refundOn5xx: refund, ...fixed } = options;
  if (fixed.scopes) keyward.assertScopes(fixed.scopes);
  if (fixed.environment !== undefined) keyward.assertEnvironment(fixed.environment);
  const refundOn5xx = refund !== false;
  return (req, res, next) => {
    const run = async () => {
      const cost = await reserve(req);
      const template = route ?? `${req.baseUrl}${String(req.route?.path ?? "*")}`;
      const reserved = await keyward.budgets.reserve(headerValue(req.rawHeaders, "authorization"), {
        ...fixed,
        route: routeWithMethod(req.method, template),
        cost,
        clientIp: req.ip,
        resource: resource?.(req),
      });
      if (!reserved.ok) {
        await sendResponse(res, reserved.error.toResponse(reserved.headers));
        return;
      }
      for (const name in reserved.headers) res.setHeader(name, reserved.headers[name]!);
      const { hold } = reserved;
      let counted = 0;
      const end = (how: "settle" | "release") => {
        const ending = how === "release" ? hold.release() : hold.settle(counted);
        ending.catch((error) => req.app?.emit?.("error", error));
      };
      res.once("finish", () => end(refundOn5xx && res.statusCode >= 500 ? "release" : "settle"));
      res.once("close", () => {
        // Closed before it finished: the client went away.
        if (!res.writableFinished) end(onAbort === "release" ? "release" : "settle");
      });
      req.keyward = { principal: reserved.principal, rateLimit: reserved.rateLimit };
      req.keywardHold = {
        hold,
        sent(n = 1) {
          counted += n;
        },
      };
      next();
    };
    run().catch(next);
  };
}
