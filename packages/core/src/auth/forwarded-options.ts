/**
 * `verify`'s options as `authenticate` and the adapters' guards pass them on: every member the
 * caller gave, the kernel's and those a feature declares by augmenting `VerifyOptions` (agent
 * tokens' `audience`…), never a list of names that drops the others.
 *
 * Both keep V8's fast path (docs/benchmarks.md, "HTTP"): an object spread followed by properties
 * the spread object lacks costs microseconds per request, a literal or a spread that only
 * overrides existing properties tens of nanoseconds.
 */
import type { VerifyOptions } from "./principal.js";
import type { InternalVerifyOptions } from "./verify-wrappers.js";

/**
 * `options` with `route` and `session` set, for `authenticate`: the kernel's members as a literal,
 * then any other member (a feature's) copied by name.
 */
export function withRequestParts(
  options: VerifyOptions,
  route: string | undefined,
  session: InternalVerifyOptions["session"],
): InternalVerifyOptions {
  const forwarded: InternalVerifyOptions = {
    accept: options.accept,
    scopes: options.scopes,
    route,
    clientIp: options.clientIp,
    cost: options.cost,
    environment: options.environment,
    resource: options.resource,
    session,
  };
  for (const name in options) {
    if (!(name in forwarded)) {
      (forwarded as Record<string, unknown>)[name] = (options as Record<string, unknown>)[name];
    }
  }
  return forwarded;
}

/** What a guard learns per request. */
export interface GuardRequestParts {
  route: string;
  clientIp: string | undefined;
  resource: Readonly<Record<string, string>> | undefined;
}

/**
 * A guard's options per request, from the `verify` options it was created with (the guard's own,
 * such as a `resource` function or a client-address resolver, left out by the caller): every
 * member given, with the request's `route`, `clientIp` and `resource`. The template holds those
 * three already, so each request's object is a spread that only overrides.
 *
 * @example
 * const { route, resource, ...fixed } = options;
 * const optionsFor = guardOptions(fixed);
 * verifyPending(keyward, authorization, optionsFor({ route, clientIp: req.ip, resource: undefined }));
 */
export function guardOptions(fixed: VerifyOptions): (parts: GuardRequestParts) => VerifyOptions {
  const template: VerifyOptions = {
    ...fixed,
    route: undefined,
    clientIp: undefined,
    resource: undefined,
  };
  return ({ route, clientIp, resource }) => ({ ...template, route, clientIp, resource });
}
