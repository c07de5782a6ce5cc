/**
 * A browser sends the host's session cookie with any request to the host, including a form posted
 * from another site. A key-management call authenticated by that cookie alone (the `session`
 * option) must therefore come from a page the host trusts: a state-changing request whose `Origin`
 * (or, without one, `Sec-Fetch-Site`) says it came from elsewhere is refused. Requests carrying a
 * bearer token need no such check: another site cannot make a browser attach one.
 */
const safeMethods = new Set(["GET", "HEAD", "OPTIONS"]);

export function isCrossSiteWrite(request: Request, trustedOrigins: ReadonlySet<string>): boolean {
  if (safeMethods.has(request.method)) return false;
  const origin = request.headers.get("origin");
  if (origin !== null) {
    return origin !== new URL(request.url).origin && !trustedOrigins.has(origin);
  }
  // Browsers that omit Origin still send Fetch Metadata; other clients send neither and carry no
  // ambient cookie a third-party page could have made them send.
  const site = request.headers.get("sec-fetch-site");
  return site === "cross-site" || site === "same-site";
}
