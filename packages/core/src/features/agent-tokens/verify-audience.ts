/**
 * The `audience` option of `verify`, which this feature adds: the resource a route is, as the
 * `aud` of the tokens it accepts. An exchanged token is accepted only where the route names its
 * audience; an API key, and a user's session, ignore the option. Declared here, by the feature that
 * reads it, so the kernel's options name nothing of it.
 *
 * @example
 * await keyward.verify(request.headers.get("authorization"), {
 *   scopes: ["profile:read"],
 *   route: "POST /mcp",
 *   audience: "https://api.example.com/mcp",
 * });
 */
export {};

declare module "../../auth/principal.js" {
  interface VerifyOptions {
    /**
     * The audience this route is (`agentTokens()`): an exchanged token is accepted only when its
     * `aud` is this one. Without it no exchanged token is accepted here.
     */
    audience?: string | undefined;
  }
}
