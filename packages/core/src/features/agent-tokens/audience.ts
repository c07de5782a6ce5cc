/**
 * Audiences compared as the resource servers that name them mean them: exactly, except that a URL
 * on the loopback host is the same whether it says `localhost`, `127.0.0.1` or `[::1]` (a server
 * listening on 127.0.0.1 is reached as `localhost` as often as not).
 */
const loopback = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** The audience in the form compared: loopback hosts as `localhost`, no trailing slash. */
export function normalAudience(audience: string): string {
  if (!/^https?:\/\//i.test(audience)) return audience;
  let url: URL;
  try {
    url = new URL(audience);
  } catch {
    return audience;
  }
  if (loopback.has(url.hostname)) url.hostname = "localhost";
  const text = url.href;
  return text.endsWith("/") && url.pathname !== "/" ? text.slice(0, -1) : text.replace(/\/$/, "");
}

export function sameAudience(a: string, b: string): boolean {
  return a === b || normalAudience(a) === normalAudience(b);
}
