import { parseArgs } from "node:util";
import { DEMO_TIER_NAMES, type DemoTier } from "@keyward/testing/demo-contract";
import { SignJWT } from "jose";
import { loadDemoConfig } from "./config.js";

export interface MintTokenOptions {
  /** The user id: the JWT's `sub`. */
  sub: string;
  /** The account tier: the JWT's `tier` claim. */
  tier: DemoTier;
  /** A jose duration such as `"1h"`, `"15m"` or `"7d"`; default `"1h"`. */
  expiresIn?: string;
  /** The HS256 secret; default the demo's (`KEYWARD_JWT_SECRET`, or the development secret). */
  secret?: string;
  /** Organization memberships: the `orgs` claim (omitted when empty). */
  orgs?: { id: string; role: string; tier: DemoTier }[];
}

/**
 * Signs a session JWT as the demo's stand-in identity provider would: HS256, `sub` and `tier`.
 *
 * @example
 * const token = await mintToken({ sub: "alice", tier: "pro" });
 * await fetch(`${url}/api/v1/api-keys`, { headers: { authorization: `Bearer ${token}` } });
 */
export async function mintToken(options: MintTokenOptions): Promise<string> {
  const secret = options.secret ?? loadDemoConfig().jwtSecret;
  const claims = options.orgs?.length
    ? { tier: options.tier, orgs: options.orgs }
    : { tier: options.tier };
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(options.sub)
    .setIssuedAt()
    .setExpirationTime(options.expiresIn ?? "1h")
    .sign(new TextEncoder().encode(secret));
}

const usage = `Usage: token [--sub alice] [--tier free|pro|enterprise] [--expires-in 1h]
             [--org <id>:<role>:<tier>]...

Prints a session JWT for the demo server, signed with KEYWARD_JWT_SECRET
(or the development secret when it is unset). Defaults: --sub alice --tier free --expires-in 1h.
Each --org adds a membership to the \`orgs\` claim, e.g. --org acme:admin:pro.`;

/**
 * The examples' `token` script: parses `--sub alice --tier pro [--expires-in 1h]` and prints the
 * JWT alone on stdout, so `TOKEN=$(pnpm --silent token --sub alice --tier pro)` captures it.
 */
export async function runTokenCommand(argv: string[]): Promise<void> {
  try {
    await printToken(argv);
  } catch (error) {
    console.error(`token: ${error instanceof Error ? error.message : String(error)}\n\n${usage}`);
    (globalThis as { process?: { exitCode?: number } }).process!.exitCode = 1;
  }
}

async function printToken(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      sub: { type: "string", default: "alice" },
      tier: { type: "string", default: "free" },
      "expires-in": { type: "string", default: "1h" },
      org: { type: "string", multiple: true, default: [] },
      help: { type: "boolean", short: "h", default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) {
    console.log(usage);
    return;
  }
  if (!values.sub) throw new TypeError("--sub must not be empty");
  if (!(DEMO_TIER_NAMES as string[]).includes(values.tier)) {
    throw new TypeError(
      `--tier must be one of ${DEMO_TIER_NAMES.join(", ")} (got "${values.tier}")`,
    );
  }
  const token = await mintToken({
    sub: values.sub,
    tier: values.tier as DemoTier,
    expiresIn: values["expires-in"],
    orgs: values.org.map(parseMembership),
  });
  console.log(token);
}

/** `acme:admin:pro` → `{ id: "acme", role: "admin", tier: "pro" }`. */
function parseMembership(text: string): { id: string; role: string; tier: DemoTier } {
  const [id, role, tier, ...rest] = text.split(":");
  if (!id || !role || !tier || rest.length > 0) {
    throw new TypeError(`--org must be <id>:<role>:<tier>, e.g. acme:admin:pro (got "${text}")`);
  }
  if (!(DEMO_TIER_NAMES as readonly string[]).includes(tier)) {
    throw new TypeError(`--org tier must be one of ${DEMO_TIER_NAMES.join(", ")} (got "${tier}")`);
  }
  return { id, role, tier: tier as DemoTier };
}
