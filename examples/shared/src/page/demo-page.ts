/**
 * The key-management page every example serves in development mode, as one Fetch handler: `GET /`
 * (the page), `GET /demo/keyward-ui.js` (the component) and, with the development secret,
 * `POST /demo/session` (the "act as" form). It answers `null` for every other request, and for
 * all of them with `NODE_ENV=production`: those paths then answer 404, as in v0.1.
 */
import type { DemoConfig } from "../config.js";
import { demoPageHtml, demoSessionPath, uiScriptPath } from "./demo-page-html.js";
import { answerDemoSession } from "./demo-session.js";
import { uiScript } from "./ui-script.js";

export interface DemoPage {
  /** False in production: `handle` then answers nothing. */
  enabled: boolean;
  /** A Response for the page's own paths, `null` for anything else. */
  handle(request: Request): Promise<Response | null>;
}

/**
 * @example
 * const page = createDemoPage(demo.config);
 * const handler = async (request) => (await page.handle(request)) ?? app(request);
 */
export function createDemoPage(
  config: Pick<DemoConfig, "developmentMode" | "usingDevelopmentSecret" | "jwtSecret">,
): DemoPage {
  const enabled = config.developmentMode;
  const canMintSessions = enabled && config.usingDevelopmentSecret;
  const html = demoPageHtml({ canMintSessions });
  return {
    enabled,
    async handle(request) {
      if (!enabled) return null;
      const { pathname } = new URL(request.url);
      const reading = request.method === "GET" || request.method === "HEAD";
      if (pathname === "/" && reading) {
        return new Response(request.method === "HEAD" ? null : html, {
          headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" },
        });
      }
      if (pathname === uiScriptPath && reading) return answerUiScript(request);
      if (pathname === demoSessionPath && request.method === "POST" && canMintSessions) {
        return answerDemoSession(request, config.jwtSecret);
      }
      return null;
    },
  };
}

async function answerUiScript(request: Request): Promise<Response> {
  try {
    const script = await uiScript();
    return new Response(request.method === "HEAD" ? null : script, {
      headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "no-cache" },
    });
  } catch (error) {
    console.error("keyward demo: could not bundle @keyward/ui:", error);
    return Response.json(
      { detail: "Could not bundle @keyward/ui for the page; the server's log says why" },
      { status: 500 },
    );
  }
}
