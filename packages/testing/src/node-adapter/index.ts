/**
 * The Node adapter suite: what a framework adapter on Node's HTTP server must get right beyond the
 * HTTP contract — bodies a framework may already have read, the body limit on a real socket,
 * repeated headers, the guard on the host's routes, mounting under a prefix, the client's
 * address, and the guard's options. Each adapter passes one factory that serves the demo host.
 */
import { describe } from "vitest";
import { describeClientAddress } from "../http/client-address-suite.js";
import { describeGuardOptions } from "../http/guard-options-suite.js";
import { bodiesSuite } from "./bodies-suite.js";
import { nodeAdapterFixture } from "./fixture.js";
import { guardSuite } from "./guard-suite.js";
import { headersSuite } from "./headers-suite.js";
import type { NodeAdapterConformanceOptions } from "./options.js";
import { routingSuite } from "./routing-suite.js";

export type {
  NodeAdapterConformanceOptions,
  NodeAdapterHost,
  NodeAdapterServer,
} from "./options.js";

/**
 * Registers the Node adapter suite with vitest. Run it beside `describeHttpConformance`; keep in
 * your own tests only what is particular to your framework.
 *
 * @example
 * describeNodeAdapterConformance("Express 5", {
 *   serve: async (keyward, host) => {
 *     const app = express();
 *     if (host.trustLoopbackProxy) app.set("trust proxy", "loopback");
 *     app.use(host.prefix ?? "/", keywardRouter(keyward));
 *     app.get("/api/v1/profiles/:slug", requireApiKey(keyward, { scopes: ["profile:read"] }), …);
 *     app.put("/api/v1/profiles/:slug", requireApiKey(keyward, { scopes: ["profile:write"] }),
 *       express.json(), …);
 *     app.get("/guarded", requireApiKey(keyward, host.guard), (req, res) => {
 *       host.onGuarded?.();
 *       res.json({ kind: req.keyward.principal.kind, userId: req.keyward.principal.userId });
 *     });
 *     return listen(app); // { origin, close } on 127.0.0.1, port 0
 *   },
 *   createGuard: (keyward, guard) => requireApiKey(keyward, guard),
 * });
 */
export function describeNodeAdapterConformance(
  name: string,
  options: NodeAdapterConformanceOptions,
): void {
  describe(`Node adapter conformance: ${name}`, () => {
    const fixture = nodeAdapterFixture(options);
    bodiesSuite(fixture);
    headersSuite(fixture);
    guardSuite(fixture);
    routingSuite(fixture);
  });
  describeClientAddress(name, {
    serve: (keyward, { trustLoopbackProxy }) => options.serve(keyward, { trustLoopbackProxy }),
  });
  describeGuardOptions(name, {
    serve: (keyward, guard) => options.serve(keyward, { guard }),
    createGuard: options.createGuard,
  });
}
