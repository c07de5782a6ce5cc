/** The demo page in front of a Fetch handler: the page's paths first, then the app. */
import type { DemoPage } from "./demo-page.js";

export function withDemoPage(
  page: DemoPage,
  app: (request: Request) => Promise<Response>,
): (request: Request) => Promise<Response> {
  if (!page.enabled) return app;
  return async (request) => (await page.handle(request)) ?? app(request);
}
