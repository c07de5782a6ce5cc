/**
 * `POST /demo/session` `{ "sub", "tier" }` → `{ "token" }`: the page's "act as" form. It signs a
 * session JWT with the public development secret, as `pnpm token` does, so that a person can try
 * the key-management page as any user. Offered only while the server runs with that secret (anyone
 * can mint such tokens anyway) and never with `NODE_ENV=production`.
 */
import { type DemoTier, DEMO_TIER_NAMES as demoTierNames } from "@keyward/testing/demo-contract";
import { mintToken } from "../token.js";

/** Unicode Cc (U+0000–U+001F, U+007F–U+009F) and the bidi controls, as core refuses in a `sub`. */
const forbiddenCharacter = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/u;

export async function answerDemoSession(request: Request, secret: string): Promise<Response> {
  let body: unknown;
  try {
    body = await request.json();
  } catch {
    return Response.json({ detail: 'The body must be JSON: {"sub", "tier"}' }, { status: 400 });
  }
  const { sub, tier } = (body ?? {}) as { sub?: unknown; tier?: unknown };
  const issues = [];
  if (typeof sub !== "string" || sub.trim() === "" || [...sub].length > 255) {
    issues.push(issue("sub", "The user id must be 1 to 255 characters", "string_length"));
  } else if (forbiddenCharacter.test(sub)) {
    issues.push(issue("sub", "The user id must not contain control characters", "value_error"));
  }
  if (typeof tier !== "string" || !(demoTierNames as readonly string[]).includes(tier)) {
    issues.push(issue("tier", `The tier must be one of ${demoTierNames.join(", ")}`, "enum"));
  }
  if (issues.length > 0) return Response.json({ detail: issues }, { status: 422 });
  const token = await mintToken({
    sub: (sub as string).trim(),
    tier: tier as DemoTier,
    expiresIn: "8h",
    secret,
  });
  return Response.json({ token }, { headers: { "cache-control": "no-store" } });
}

function issue(field: string, msg: string, type: string) {
  return { loc: ["body", field], msg, type };
}
