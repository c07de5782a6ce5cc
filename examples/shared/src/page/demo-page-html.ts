/**
 * The demo's page at `/`: `<keyward-keys>` under a small "act as" form. With the development
 * secret, the form mints a session for any user and tier (`POST /demo/session`); with a secret of
 * the operator's own, it takes a session JWT pasted in (`pnpm token` with that secret exported).
 */
import { DEMO_TIER_NAMES as demoTierNames } from "@keyward/testing/demo-contract";

export const uiScriptPath = "/demo/keyward-ui.js";
export const demoSessionPath = "/demo/session";

export function demoPageHtml(options: { canMintSessions: boolean }): string {
  const tierOptions = demoTierNames
    .map((tier) => `<option value="${tier}"${tier === "pro" ? " selected" : ""}>${tier}</option>`)
    .join("");
  const actAs = options.canMintSessions
    ? `<form id="act-as" aria-labelledby="act-as-title">
        <h2 id="act-as-title">Act as a user</h2>
        <p class="note">The server uses the public development secret, so this page can sign a
        session for any user. Set <code>KEYWARD_JWT_SECRET</code> and this form asks for a token instead.</p>
        <div class="row">
          <label for="sub">User id (<code>sub</code>)</label>
          <input id="sub" name="sub" value="alice" required maxlength="255" autocomplete="off">
          <label for="tier">Account tier</label>
          <select id="tier" name="tier">${tierOptions}</select>
          <button type="submit">Act as this user</button>
        </div>
      </form>`
    : `<form id="paste-token" aria-labelledby="paste-title">
        <h2 id="paste-title">Sign in with a session token</h2>
        <p class="note">This server checks tokens with your <code>KEYWARD_JWT_SECRET</code>. Mint one with
        <code>pnpm token --sub alice --tier pro</code> in a shell where it is exported, and paste it here.</p>
        <div class="row">
          <label for="token">Session JWT</label>
          <input id="token" name="token" required autocomplete="off">
          <button type="submit">Use this token</button>
        </div>
      </form>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Keyward demo: your API keys</title>
<link rel="icon" href="data:,">
<style>
  /* The page follows prefers-color-scheme as <keyward-keys> does (its own palettes' colours), so
     the component never sits as a dark box on a white page, or the other way round. */
  :root {
    --page-text: #1f2328; --page-muted: #57606a; --page-background: #ffffff;
    --page-surface: #f6f8fa; --page-border: #d0d7de; --page-accent: #0a58ca; --page-danger: #b42318;
  }
  @media (prefers-color-scheme: dark) {
    :root {
      --page-text: #e6edf3; --page-muted: #9198a1; --page-background: #0d1117;
      --page-surface: #161b22; --page-border: #3d444d; --page-accent: #1f6feb; --page-danger: #f85149;
    }
  }
  body { font-family: system-ui, sans-serif; margin: 0; color: var(--page-text); background: var(--page-background); }
  header, main { max-width: 1100px; margin: 0 auto; padding: 16px 24px; }
  @media (max-width: 480px) { header, main { padding: 12px 16px; } }
  header { border-bottom: 1px solid var(--page-border); }
  keyward-keys { display: block; }
  h1 { font-size: 1.4em; margin: 0; }
  h2 { font-size: 1.1em; margin: 0 0 4px; }
  form { margin: 16px 0 24px; padding: 16px; border: 1px solid var(--page-border); border-radius: 8px; background: var(--page-surface); }
  .row { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
  .note { color: var(--page-muted); margin: 0 0 12px; }
  input, select, button { font: inherit; padding: 4px 8px; }
  button { background: var(--page-accent); color: #fff; border: 1px solid var(--page-accent); border-radius: 6px; cursor: pointer; }
  #signed-in { font-weight: 600; margin: 8px 0 0; }
  #session-error { color: var(--page-danger); }
</style>
</head>
<body>
<header><h1>Keyward demo</h1></header>
<main>
  ${actAs}
  <p id="signed-in" role="status"></p>
  <p id="session-error" role="alert"></p>
  <keyward-keys base-path="/api/v1/api-keys" tiers="${demoTierNames.join(",")}" grace-periods="3600,86400,604800"></keyward-keys>
</main>
<script type="module" src="${uiScriptPath}"></script>
<script type="module">
  const keys = document.querySelector("keyward-keys");
  const signedIn = document.getElementById("signed-in");
  const failure = document.getElementById("session-error");
  const actAs = document.getElementById("act-as");
  const pasted = document.getElementById("paste-token");
  actAs?.addEventListener("submit", async (event) => {
    event.preventDefault();
    failure.textContent = "";
    const body = { sub: actAs.sub.value, tier: actAs.tier.value };
    const response = await fetch("${demoSessionPath}", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const answer = await response.json();
    if (!response.ok) {
      const detail = answer.detail;
      failure.textContent = Array.isArray(detail) ? detail.map((d) => d.msg).join("; ") : detail;
      return;
    }
    keys.token = answer.token;
    signedIn.textContent = "Acting as " + body.sub + " (" + body.tier + " account)";
  });
  pasted?.addEventListener("submit", (event) => {
    event.preventDefault();
    keys.token = pasted.token.value.trim();
    signedIn.textContent = "Using the pasted session token";
  });
</script>
</body>
</html>
`;
}
