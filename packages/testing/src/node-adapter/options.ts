/**
 * What a Node framework adapter hands `describeNodeAdapterConformance`: how to start the demo host
 * on its framework with a given Keyward, on 127.0.0.1 and a free port.
 */
import type { Keyward } from "@keyward/core";
import type { GuardOptions } from "../http/guard-options-suite.js";

/** A host the suite started; `close` ends its connections and stops listening. */
export interface NodeAdapterServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  close(): Promise<void>;
}

/** How the suite wants one host served. Every field is optional: `{}` is the demo host. */
export interface NodeAdapterHost {
  /**
   * Mount the key-management endpoints under this path (Express `app.use(prefix, router)`, a
   * Fastify context registered with `{ prefix }`), so they answer at `{prefix}{basePath}`. With a
   * prefix the suite uses only the key-management endpoints; the host routes may be left out.
   */
  prefix?: string;
  /**
   * Trust a proxy on a loopback address (Express `trust proxy`, Fastify `trustProxy`:
   * `"loopback"`), so that `X-Forwarded-For` from one names the client.
   */
  trustLoopbackProxy?: boolean;
  /** The options of the guard in front of `GET /guarded`; default none (`{}`). */
  guard?: GuardOptions;
  /**
   * Call it from `GET /guarded`'s handler, once per request that reaches it: the suite checks that
   * a refused request never does.
   */
  onGuarded?(): void;
}

export interface NodeAdapterConformanceOptions {
  /**
   * Starts the demo host with `keyward` on 127.0.0.1, port 0:
   *
   * - the key-management endpoints under `keyward.basePath` (below `host.prefix`, if given);
   * - `GET /api/v1/profiles/:slug` behind the guard with scope `profile:read`, answering
   *   `{ slug, viewer: principal.userId }`;
   * - `PUT /api/v1/profiles/:slug` behind the guard with scope `profile:write`, its JSON body read
   *   by the framework's usual JSON parser, answering `{ slug, updatedBy: principal.userId }`;
   * - `GET /guarded` behind the guard with `host.guard`, calling `host.onGuarded` and answering
   *   `{ kind: principal.kind, userId: principal.userId }`.
   *
   * Guards record usage under the route template, as the adapter does by default.
   */
  serve(keyward: Keyward, host: NodeAdapterHost): Promise<NodeAdapterServer>;
  /**
   * Creates the adapter's guard (without serving it), for the checks made at creation. May return
   * a promise, for frameworks that build guards after an asynchronous registration.
   */
  createGuard(keyward: Keyward, guard: GuardOptions): unknown;
}
