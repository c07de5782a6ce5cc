/**
 * A Fetch `Response` back onto Fastify's reply, the other half of the translation
 * (`node-request.ts` is the first). Going through `reply`, not the raw response, keeps the host's
 * `onSend` hooks (CORS, compression) in the loop.
 */
import type { FastifyReply } from "fastify";

/** Sends a Fetch `Response` as the reply; `Set-Cookie` stays one line per cookie. */
export async function sendReply(reply: FastifyReply, response: Response): Promise<FastifyReply> {
  reply.code(response.status);
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") reply.header(name, value);
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) reply.header("set-cookie", cookies);
  // Keyward's bodies are small JSON documents: a Buffer is sent as it is, with its content type.
  return reply.send(response.body ? Buffer.from(await response.arrayBuffer()) : undefined);
}
