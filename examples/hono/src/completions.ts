/**
 * `POST /api/v1/completions` on Hono (demo contract v0.4): `requireHold` reserves `max_tokens`
 * from the key's credits, and the answer's body is a `settlingStream` of `use` chunks: it settles
 * what the client took when it ends, or when the client cancels it. A body that is not the
 * contract's is a 422 that spends nothing.
 */
import { isKeywardError, type Keyward } from "@keyward/core";
import { type BudgetsApi, settlingStream } from "@keyward/core/budgets";
import {
  COMPLETION_STREAM_HEADERS,
  COMPLETIONS_PATH,
  COMPLETIONS_SCOPES,
  completionChunks,
  parseCompletionRequest,
  tokensToReserve,
} from "@keyward/example-demo";
import { type KeywardEnv, requireHold } from "@keyward/hono";
import type { Context, Hono } from "hono";

/** The body as JSON, or null when it is not: Hono keeps what it parsed for the next read. */
const jsonBody = (c: Context) => c.req.json().catch(() => null);

export function addCompletions(
  app: Hono<KeywardEnv>,
  keyward: Keyward & { budgets: BudgetsApi },
  clientIp: (c: Context) => string | null | undefined,
): void {
  app.post(
    COMPLETIONS_PATH,
    requireHold(keyward, {
      scopes: [...COMPLETIONS_SCOPES],
      clientIp,
      reserve: async (c) => tokensToReserve(await jsonBody(c)),
    }),
    async (c) => {
      const hold = c.get("keywardHold");
      let use: number;
      try {
        ({ use } = parseCompletionRequest(await jsonBody(c)));
      } catch (error) {
        await hold.release();
        if (isKeywardError(error)) return error.toResponse(); // the 422 with its issues
        throw error;
      }
      return new Response(settlingStream(hold, completionChunks(use)), {
        headers: COMPLETION_STREAM_HEADERS,
      });
    },
  );
}
