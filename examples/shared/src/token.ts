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
  return new SignJWT({ tier: options.tier })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(options.sub)
    .setIssuedAt()
    .setExpirationTime(options.expiresIn ?? "1h")
    .sign(new TextEncoder().encode(secret));
}

const usage = `Usage: token [--sub alice] [--tier free|pro|enterprise] [--expires-in 1h]

Prints a session JWT for the demo server, signed with KEYWARD_JWT_SECRET
(or the development secret when it is unset). Defaults: --sub alice --tier free --expires-in 1h.`;

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
  });
  console.log(token);
}
