/**
 * Why the guards build `verify`'s options as plain literals: on V8 (Node 20), an object spread
 * followed by properties the spread object lacks (`{ ...fixed, route, clientIp }`, what the guards
 * did per request) takes microseconds, against tens of nanoseconds for the same object written out.
 * Overriding a property the spread object already has stays fast: what `guardOptions` (toolkit)
 * does, its template holding the per-request members already, so a guard passes on every option
 * given (a feature's `audience` too) at a literal's cost. `authenticate` builds the kernel's
 * members as a literal and copies any other (`withRequestParts`).
 *
 * @example
 * npx pnpm@10 bench verify-options.bench.ts
 */
import { guardOptions } from "@keyward/core/toolkit";
import { bench, do_not_optimize, group, summary } from "mitata";
import { withRequestParts } from "../packages/core/src/auth/forwarded-options.js";

const scopes = ["profile:read"];
const accept = undefined as string | undefined;
// Built as the guards built it once per route.
const fixed = { ...(scopes ? { scopes } : {}), ...(accept ? { accept } : {}) };
const addresses = ["127.0.0.1", "127.0.0.2"];
const resource = undefined;
const optionsFor = guardOptions({ scopes });
const optionsForAudience = guardOptions({
  scopes,
  audience: "https://api.example.com/mcp",
} as Parameters<typeof guardOptions>[0]);
let turn = 0;

summary(() => {
  group("verify options, per request", () => {
    bench("spread + new properties: { ...fixed, route, clientIp }", () =>
      do_not_optimize({ ...fixed, route: "GET /x", clientIp: addresses[turn++ & 1] }),
    ).baseline(true);
    bench("spread, overriding an existing property", () => do_not_optimize({ ...fixed, scopes }));
    bench("literal: { scopes, accept, route, clientIp }", () =>
      do_not_optimize({ scopes, accept, route: "GET /x", clientIp: addresses[turn++ & 1] }),
    );
    bench("guardOptions(fixed)({ route, clientIp, resource })", () =>
      do_not_optimize(optionsFor({ route: "GET /x", clientIp: addresses[turn++ & 1], resource })),
    );
    bench("guardOptions, with a feature's option (audience)", () =>
      do_not_optimize(
        optionsForAudience({ route: "GET /x", clientIp: addresses[turn++ & 1], resource }),
      ),
    );
    bench("authenticate's withRequestParts(options, route, session)", () =>
      do_not_optimize(
        withRequestParts({ scopes, clientIp: addresses[turn++ & 1] }, "GET /x", undefined),
      ),
    );
    bench("withRequestParts, with a feature's option (audience)", () =>
      do_not_optimize(
        withRequestParts(
          { scopes, clientIp: addresses[turn++ & 1], audience: "https://api.example.com/mcp" },
          "GET /x",
          undefined,
        ),
      ),
    );
  });
});
