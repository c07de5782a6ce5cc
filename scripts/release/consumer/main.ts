/**
 * A consumer of the published packages, as a user's project would be: compiled by the release test
 * with `moduleResolution` node16 and bundler against the packed tarballs installed by npm, then run
 * on Node. It prints one JSON line for the test to check.
 */
import { createKeyward, memoryStore } from "@keyward/core";
import * as toolkit from "@keyward/core/toolkit";
import { keywardFetchHandler, withApiKey } from "@keyward/fetch";

const keyward = createKeyward({
  store: memoryStore(),
  scopes: { "profile:read": "Read profiles", "profile:write": "Edit profiles" },
  tiers: {
    free: { rateLimit: { limit: 60, window: "1m" } },
    pro: { rateLimit: { limit: 600, window: "1m" } },
  },
  jwt: { secret: "a-consumer-test-secret-that-is-32-bytes-or-more" },
});

const created = await keyward.keys.create({
  ownerId: "alice",
  accountTier: "pro",
  name: "consumer",
  scopes: ["profile:read"],
  tier: "free",
});

const verified = await keyward.verify(`Bearer ${created.key}`, {
  scopes: ["profile:read"],
  route: "GET /profiles/:slug",
});
const refused = await keyward.verify(`Bearer ${created.key}`, {
  scopes: ["profile:write"],
  route: "PUT /profiles/:slug",
});

const getProfile = withApiKey(
  keyward,
  { scopes: ["profile:read"], route: "/profiles/:slug" },
  (_request, principal) =>
    new Response(JSON.stringify({ viewer: principal.userId }), {
      headers: { "content-type": "application/json" },
    }),
);
const response = await getProfile(
  new Request("http://consumer.test/profiles/alice", {
    headers: { authorization: `Bearer ${created.key}` },
  }),
);
const keyManagement = keywardFetchHandler(keyward);
const elsewhere = await keyManagement(new Request("http://consumer.test/elsewhere"));

await keyward.close();
console.log(
  JSON.stringify({
    verified: verified.ok,
    refusedStatus: refused.ok ? null : refused.error.status,
    guardedStatus: response.status,
    guardedBody: await response.json(),
    rateLimitHeader: response.headers.get("x-ratelimit-limit"),
    elsewhere,
    toolkit: typeof toolkit,
  }),
);
