/**
 * A Fetch `Response` back onto Express's response, the other half of the translation
 * (`node-request.ts` is the first).
 */
import type { ServerResponse } from "node:http";

/** Writes a Fetch `Response` onto a Node response; `Set-Cookie` stays one line per cookie. */
export async function sendResponse(res: ServerResponse, response: Response): Promise<void> {
  res.statusCode = response.status;
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") res.setHeader(name, value);
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader("set-cookie", cookies);
  // Keyward's bodies are small JSON documents: buffering them keeps the write a single `end`.
  res.end(response.body ? new Uint8Array(await response.arrayBuffer()) : undefined);
}
