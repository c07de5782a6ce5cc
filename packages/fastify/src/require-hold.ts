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
import type { Keyward, ScopeRequirement } from "@keyward/core";
import type { BudgetsApi, Hold } from "@keyward/core/budgets";
import { headerValue } from "@keyward/core/node-http";
import { routeWithMethod } from "@keyward/core/toolkit";
import type { FastifyReply, FastifyRequest } from "fastify";
import { sendReply } from "./send-reply.js";

export interface RequireHoldOptions {
  scopes?: ScopeRequirement;
  /** The route template; default the matched route's URL, as `requireApiKey`. */
  route?: string;
  /** What to hold for this request: the most it may spend (a whole number ≥ 0). */
  reserve: (request: FastifyRequest) => number | Promise<number>;
  environment?: string;
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
  if (options.scopes) keyward.assertScopes(options.scopes);
  if (options.environment !== undefined) keyward.assertEnvironment(options.environment);
  const refundOn5xx = options.refundOn5xx !== false;
  return async (request, reply) => {
    const cost = await options.reserve(request);
    const template = options.route ?? request.routeOptions.url ?? "*";
    const reserved = await keyward.budgets.reserve(
      headerValue(request.raw.rawHeaders, "authorization"),
      {
        route: routeWithMethod(request.method, template),
        cost,
        ...(options.scopes ? { scopes: options.scopes } : {}),
        ...(options.environment !== undefined ? { environment: options.environment } : {}),
        clientIp: request.ip,
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
      if (!raw.writableFinished) end(options.onAbort === "release" ? "release" : "settle");
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
