/**
 * What an example prints at start: the URL, a loud warning when the public development secret is
 * in use, and a walkthrough to paste into bash. The walkthrough needs only curl and node (no jq),
 * and the examples' tests run it verbatim against the started server.
 */

import { DEMO_TIER_NAMES } from "@keyward/testing/demo-contract";
import type { DemoConfig } from "./config.js";

/** The command of every example's `token` script, run from the example's directory. */
export const tokenScript = "node --conditions=@keyward/source --import tsx src/token.ts";

export const walkthroughStart =
  "echo '---- Keyward walkthrough: paste into bash or zsh (needs curl and node) ----'";
export const walkthroughEnd = "echo '---- end of walkthrough ----'";

export interface BannerOptions {
  /** What is running, e.g. `Fetch API on Node (srvx)`. */
  title: string;
  /** Where the server answers, without a trailing slash: `http://localhost:3000`. */
  url: string;
  config: Pick<DemoConfig, "tierLimits" | "usingDevelopmentSecret" | "developmentMode"> &
    Partial<Pick<DemoConfig, "ownerLimits" | "quotas">>;
  /** Which backend holds what (`openDemoStore`'s description). */
  storage: string;
  /** Where metering sends usage (`createDemo`'s `metering`); no line when it is not listed. */
  metering?: string | undefined;
  /** The example's directory (absolute), where its `token` script runs. */
  exampleDirectory: string;
}

/** Prints the warning (stderr, when the development secret is in use) and the banner (stdout). */
export function printBanner(options: BannerOptions): void {
  if (options.config.usingDevelopmentSecret) console.warn(developmentSecretWarning());
  console.log(banner(options));
}

export function developmentSecretWarning(): string {
  const lines = [
    "WARNING: KEYWARD_JWT_SECRET is not set, so this server signs and accepts session JWTs with the",
    "fixed development secret from examples/shared/src/config.ts. It is public: anyone can mint a",
    "token for any user. Set KEYWARD_JWT_SECRET to a long random value (openssl rand -base64 32)",
    "before anyone but you can reach this server.",
  ];
  const text = lines.map((line) => `!! ${line}`).join("\n");
  const stderr = (globalThis as { process?: { stderr?: { isTTY?: boolean } } }).process?.stderr;
  const colour =
    stderr?.isTTY &&
    !(globalThis as { process?: { env: Record<string, string> } }).process?.env.NO_COLOR;
  return colour ? `\x1b[1;33m${text}\x1b[0m` : text;
}

export function banner(options: BannerOptions): string {
  const { url, config } = options;
  const tiers = DEMO_TIER_NAMES.map((tier) => `${tier} ${config.tierLimits[tier]}/min`).join(", ");
  return [
    "",
    `Keyward demo: ${options.title}`,
    `  URL       ${url}`,
    ...(config.developmentMode
      ? [
          `  Page      ${url}/ (manage keys in the browser; development mode, NODE_ENV=production hides it)`,
        ]
      : []),
    `  Keys      ${url}/api/v1/api-keys (the six endpoints; they need a session JWT)`,
    `  OpenAPI   ${url}/api/v1/api-keys/openapi.json`,
    `  Metrics   ${url}/metrics (Prometheus text, on this same port; keep it off the public internet)`,
    `  Profiles  GET ${url}/api/v1/profiles/:slug needs profile:read, PUT needs profile:write`,
    `  Tiers     ${tiers}`,
    ...layerLines(config),
    `  Storage   ${options.storage}`,
    ...(options.metering ? [`  Metering  ${options.metering}`] : []),
    `  JWT       ${config.usingDevelopmentSecret ? "the development secret (see the warning)" : "KEYWARD_JWT_SECRET"}`,
    "",
    walkthrough(options),
    "",
  ].join("\n");
}

/** The layered limits, when `KEYWARD_OWNER_LIMITS` or `KEYWARD_QUOTAS` set any (else no line). */
function layerLines(config: BannerOptions["config"]): string[] {
  const lines: string[] = [];
  const owner = DEMO_TIER_NAMES.flatMap((tier) => {
    const limit = config.ownerLimits?.[tier];
    return limit === undefined ? [] : [`${tier} ${limit}/min`];
  });
  const quotas = DEMO_TIER_NAMES.flatMap((tier) => {
    const quota = config.quotas?.[tier];
    return quota === undefined ? [] : [`${tier} ${quota.limit}/${quota.period}`];
  });
  if (owner.length > 0) lines.push(`  Owners    ${owner.join(", ")} (shared by each owner's keys)`);
  if (quotas.length > 0) lines.push(`  Quotas    ${quotas.join(", ")} (per owner, UTC)`);
  return lines;
}

/**
 * The curl walkthrough: mint a token, create a key, call a profile route, rotate (the old secret
 * gets 401), look at usage, revoke (401). It is pasted into an interactive shell, bash or zsh, so
 * it has no `#` comments (interactive zsh runs them as commands unless `interactivecomments` is
 * set): each step announces itself with `echo '...'` in single quotes, where nothing is expanded.
 * A token the server refuses (the server's KEYWARD_JWT_SECRET not exported in the pasting shell)
 * is caught at step 1 with what to do, instead of surfacing as a row of 401s.
 */
export function walkthrough(
  options: Pick<BannerOptions, "url" | "config" | "exampleDirectory">,
): string {
  const profile = `"$BASE/api/v1/profiles/alice"`;
  const session = `-H "Authorization: Bearer $TOKEN"`;
  const secretNote = options.config.usingDevelopmentSecret
    ? []
    : [
        "echo 'The server checks tokens with your KEYWARD_JWT_SECRET: it must be exported in this shell too.'",
      ];
  return [
    walkthroughStart,
    ...secretNote,
    `BASE=${options.url}`,
    "json() { node -p \"JSON.parse(require('fs').readFileSync(0, 'utf8')).$1\"; }",
    "",
    "echo '1. A session JWT for user alice, a pro account, from the example token script.'",
    `TOKEN=$(cd ${shellQuote(options.exampleDirectory)} && ${tokenScript} --sub alice --tier pro)`,
    `STATUS=$(curl -s -o /dev/null -w '%{http_code}' "$BASE/api/v1/api-keys/scopes" ${session})`,
    `[ "$STATUS" = 200 ] && echo 'the server accepts the token' || echo "The server refused the token (HTTP $STATUS). Export KEYWARD_JWT_SECRET, set to the server's value, in this shell, then paste the walkthrough again."`,
    "",
    "echo '2. The scopes, then a key that may read profiles. Its secret is shown once.'",
    `curl -s "$BASE/api/v1/api-keys/scopes" ${session}; echo`,
    `CREATED=$(curl -s "$BASE/api/v1/api-keys" ${session} -H 'Content-Type: application/json' \\`,
    `  -d '{"name":"walkthrough","scopes":["profile:read"],"tier":"pro"}')`,
    `echo "$CREATED"`,
    `KEY_ID=$(echo "$CREATED" | json id)`,
    `KEY=$(echo "$CREATED" | json key)`,
    "",
    "echo '3. A profile route with the key; note the X-RateLimit-* headers.'",
    `curl -si ${profile} -H "Authorization: Bearer $KEY"; echo`,
    `curl -s -o /dev/null -w 'PUT with a read-only key: %{http_code} (expected 403)\\n' \\`,
    `  -X PUT ${profile} -H "Authorization: Bearer $KEY"`,
    "",
    "echo '4. Rotate: a new secret for the same key; the old secret stops working at once.'",
    `NEW_KEY=$(curl -s -X POST "$BASE/api/v1/api-keys/$KEY_ID/rotate" ${session} | json key)`,
    `curl -s -o /dev/null -w 'old secret: %{http_code} (expected 401)\\n' ${profile} -H "Authorization: Bearer $KEY"`,
    `curl -s -o /dev/null -w 'new secret: %{http_code} (expected 200)\\n' ${profile} -H "Authorization: Bearer $NEW_KEY"`,
    "",
    "echo '5. Usage so far, counted under the route template.'",
    `curl -s "$BASE/api/v1/api-keys/$KEY_ID/usage" ${session}; echo`,
    "",
    "echo '6. Revoke: from now on the key gets 401.'",
    `curl -s -X DELETE "$BASE/api/v1/api-keys/$KEY_ID" ${session}; echo`,
    `curl -s -o /dev/null -w 'revoked key: %{http_code} (expected 401)\\n' ${profile} -H "Authorization: Bearer $NEW_KEY"`,
    "",
    "echo '7. The audit log of the key, newest first: revoked, rotated, created, each with who did it.'",
    `curl -s "$BASE/api/v1/api-keys/$KEY_ID/events" ${session}; echo`,
    walkthroughEnd,
  ].join("\n");
}

/** Single-quotes a word for bash; a `'` inside becomes `'\''`. */
function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}
