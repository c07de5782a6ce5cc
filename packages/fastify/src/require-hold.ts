/**
 * A Fastify `preHandler` that reserves (`budgets()` listed): checked and limited as `requireApiKey`
 * does, holding `reserve(request)` from the key's credits or budget. An admitted request gets
 * `request.keyward` and `request.keywardHold`: the hold, and `sent(n)` to count what the reply has
 * delivered. The hold ends with the reply, on the raw response's events:
 *
 * - the reply finished: what was counted is settled (unless the handler settled it already);
 * - the client went away first: what was counted is settled, or the hold released whole with
 *   `onAbort: "release"`;
 * - the reply is a 5xx: the hold is given back whole (`refundOn5xx`, the default).
 */
import type { Keyward } from "@keyward/core";
import type { BudgetsApi, Hold, ReserveOptions } from "@keyward/core/budgets";
import { headerValue } from "@keyward/core/node-http";
import { routeWithMethod } from "@keyward/core/toolkit";
import type { FastifyReply, FastifyRequest } from "fastify";
import { sendReply } from "./send-reply.js";

/**
 * `reserve`'s options (`ReserveOptions`: `scopes`, `environment`, and every `verify` option a
 * listed feature declares), all passed on as given, with the route, the hold and the resources
 * read from the request, and the client address the guard's own (`request.ip`).
 */
export interface RequireHoldOptions
  extends Omit<ReserveOptions, "route" | "cost" | "clientIp" | "resource"> {
  /** The route template; default the matched route's URL, as `requireApiKey`. */
  route?: string;
  /** What to hold for this request: the most it may spend (a whole number ≥ 0). */
  reserve: (request: FastifyRequest) => number | Promise<number>;
  /** The resources a request is about, from the request, as `requireApiKey`'s `resource`. */
  resource?: (request: FastifyRequest) => Readonly<Record<string, string>> | undefined;
  /** On a client's abort: settle what was sent (default), or give the hold back whole. */
  onAbort?: "sent" | "release";
  /** Give the hold back whole when the reply is a 5xx; default true. */
  refundOn5xx?: boolean;
}

/** What `requireHold` leaves on `request.keywardHold`. */
export interface KeywardHoldState {
  hold: Hold;
  /** Counts `n` more delivered; what is counted is settled when the reply ends. */
  sent(n?: number): void;
}

declare module "fastify" {
  interface FastifyRequest {
    /** Set by `requireHold` on the requests it admits. */
    keywardHold?: KeywardHoldState;
  }
}

export function requireHold(
  keyward: Keyward & { budgets: BudgetsApi },
  options: RequireHoldOptions,
): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
  if (typeof keyward.budgets?.reserve !== "function") {
    throw new TypeError("requireHold needs an instance with budgets() listed");
  }
  // The guard's own; every other option goes to reserve as given (a feature's too).
  const { route, reserve, resource, onAbort, refundOn5xx: refund, ...fixed } = options;
  if (fixed.scopes) keyward.assertScopes(fixed.scopes);
  if (fixed.environment !== undefined) keyward.assertEnvironment(fixed.environment);
  const refundOn5xx = refund !== false;
  return async (request, reply) => {
    const cost = await reserve(request);
    const template = route ?? request.routeOptions.url ?? "*";
    const reserved = await keyward.budgets.reserve(
      headerValue(request.raw.rawHeaders, "authorization"),
      {
        ...fixed,
        route: routeWithMethod(request.method, template),
        cost,
        clientIp: request.ip,
        resource: resource?.(request),
      },
    );
    if (!reserved.ok) {
      await sendReply(reply, reserved.error.toResponse(reserved.headers));
      return;
    }
    reply.headers(reserved.headers);
    const { hold } = reserved;
    let counted = 0;
    const end = (how: "settle" | "release") => {
      const ending = how === "release" ? hold.release() : hold.settle(counted);
      ending.catch((error) => request.log.error({ err: error }, "Keyward: settling a hold failed"));
    };
    const raw = reply.raw;
    raw.once("finish", () => end(refundOn5xx && raw.statusCode >= 500 ? "release" : "settle"));
    raw.once("close", () => {
      if (!raw.writableFinished) end(onAbort === "release" ? "release" : "settle");
    });
    request.keyward = { principal: reserved.principal, rateLimit: reserved.rateLimit };
    request.keywardHold = {
      hold,
      sent(n = 1) {
        counted += n;
      },
    };
  };
}
